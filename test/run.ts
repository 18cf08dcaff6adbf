// `npm test`: typecheck, lint, every uvu suite, summed into one closing line `N passed, M failed`.
//
// Suites are files named `*.test.ts`. Each runs in its own Node process, so a suite that leaks a socket or
// crashes cannot take the others down, and a crash counts as a failure rather than vanishing. A suite still
// running at its time limit (15 min unless test/helpers/run-suite.ts gives it more; SUITE_TIME_LIMIT_MS
// overrides) is killed with every process it started, counted failed and named.
// Suites under test/integration, test/resilience, test/security and test/interop need the real servers;
// the runner starts them with infra/up.sh first (idempotent) and exports their addresses. The few other suites
// that need Python run with them (test/helpers/suite-classes.ts), so the rest need Node, bash, git and openssl only.
//
// Options: `npm test -- <substring>` runs only matching suite files (typecheck and lint still run);
// `--no-infra` skips the server suites and the Python ones (refused when CI=true: CI skips nothing).
// TEST_ALSO_ON_NODE=/path/to/node[,...] runs the suites that need no servers (the unit suites and the embedded
// start) once more on each of those runtimes: .ci/run runs everything on Node 24 and these on the machine's
// older Node, which the README still supports for the embedded default, and the SCADA identity attacks
// (SERVER_SUITES_ON_EVERY_RUNTIME) once more too.
// test/structure/stands-alone.test.ts runs `npm test -- --no-infra` in a copy of the repository: it runs once, on
// this runtime only, and the run it starts (STANDS_ALONE_INNER_RUN=1) leaves it out, so it never recurses.
//
// Two lanes at once, one per core of the CI machine (docs/decisions.md#ci-time-two-lanes): the server suites one
// after another (they share the servers, and the cluster suite stops and starts brokers), and beside them the
// checks (typecheck, lint) and every suite that needs no servers, also one after another, then the few server
// suites that need only PostgreSQL (POSTGRES_ONLY_SUITES), once no suite will restart it (POSTGRES_RESTARTERS). Each suite's output
// reaches the console whole (test/helpers/output-blocks.ts); the counts are summed whatever the order.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { infraEnv } from '../infra/endpoints.js';
import { FREE_PORTS } from '../support/process.js';
import { outputBlocks, type Block } from './helpers/output-blocks.js';
import { account, runSuite, type Outcome } from './helpers/run-suite.js';
import { addTally, emptyTally, tallySummary, type Tally } from './helpers/tally.js';
import { needsMoreThanNode, PYTHON_SUITES } from './helpers/suite-classes.js';

const root = new URL('..', import.meta.url).pathname;
/** The two lanes run at the same time; each picks its children's ports from its own half (support/process.ts freePort). */
const half = Math.floor((FREE_PORTS.from + FREE_PORTS.until) / 2);
const LANE_PORTS = { local: { FREE_PORTS: `${FREE_PORTS.from}-${half}` }, servers: { FREE_PORTS: `${half}-${FREE_PORTS.until}` } };
/**
 * Server suites that also run on each TEST_ALSO_ON_NODE runtime: who may act as which organisation's SCADA master
 * must not rest on how one Node version builds a peer's chain (it differed between 20 and 24,
 * docs/decisions.md#scada-master-identity-and-listener). The Python suites too: they were unit suites, which run
 * on every runtime.
 */
const SERVER_SUITES_ON_EVERY_RUNTIME = ['test/security/dnp3-attacks.test.ts', 'test/security/iec104-attacks.test.ts', ...PYTHON_SUITES];
/**
 * Server suites that need only the PostgreSQL of infra/up.sh (databases of their own, the app in process, a browser)
 * and share nothing else with the other server suites: the checks' lane runs them once its own suites are done and
 * the servers are up. The server lane was the long one (about 58 of a 60-minute CI run, the other lane idle after
 * about 17); the first four were about 11 of its minutes (docs/decisions.md#ci-time-two-lanes).
 */
const POSTGRES_ONLY_SUITES = [
  'test/integration/masking/portal-walk.test.ts',
  'test/integration/portal/portal.test.ts',
  'test/integration/api/critical-reach.test.ts',
  'test/integration/storage/plan-bounds.test.ts',
  'test/integration/api/device-range-plans.test.ts',
  // Session 34: the server lane was again the long one (about 46 minutes of suites against 23). Each of these passed
  // with only PostgreSQL running (no Kafka, registry or SQS server), about 6 minutes together.
  'test/integration/api/schemathesis.test.ts',
  'test/integration/storage/partition-cut.test.ts',
  'test/integration/portal/incidents.test.ts',
  'test/integration/portal/fleet.test.ts',
  'test/security/hostile-callers.test.ts',
  'test/integration/portal/board.test.ts',
  'test/integration/portal/map-10k.test.ts',
  'test/integration/storage/critical-active-months.test.ts',
  'test/integration/api/newest-windows.test.ts',
  'test/integration/portal/map-tiles.test.ts',
  'test/integration/reliability/export.test.ts',
  'test/integration/portal/reliability.test.ts',
];
/**
 * Server suites that restart the shared PostgreSQL (infra/postgres.sh restart): the server lane runs them first, and the
 * other lane's POSTGRES_ONLY_SUITES wait until they are done. hostile-callers.test.ts, moved to that lane in session 34,
 * ran into faults.test.ts's restart in session 35 (every request of its last test refused).
 */
const POSTGRES_RESTARTERS = ['test/resilience/faults.test.ts'];
/** Suites that run the whole command themselves (slow): once per `npm test`, not inside the run they start. */
const WHOLE_RUN_SUITES = ['test/structure/stands-alone.test.ts'];
/** Suites left out of the stands-alone copy's run (that run is of the same HEAD): the packed release's install. */
const OUTER_RUN_ONLY_SUITES = [...WHOLE_RUN_SUITES, 'test/structure/release.test.ts'];

const totals: Outcome = { passed: 0, failed: 0, skipped: 0 };
const failures: string[] = [];
let tally: Tally | null = null; // summed TALLY lines of the resilience and security suites
const notCounted: string[] = []; // suites that print a TALLY but counted nothing (failed or killed first)

function listSuites(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out = out.concat(listSuites(path));
    else if (name.endsWith('.test.ts')) out.push(relative(root, path));
  }
  return out;
}

const blocks = outputBlocks();

function run(block: Block, cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const onData = (chunk: Buffer) => { output += chunk.toString(); block.write(chunk.toString()); };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), output }));
  });
}

/** A whole-program check (typecheck, lint) counts as one test. */
async function check(name: string, cmd: string, args: string[]): Promise<void> {
  const block = blocks.open();
  block.write(`\n== ${name}\n`);
  const { code } = await run(block, cmd, args);
  if (code === 0) { totals.passed++; block.write(`${name}: ok\n`); }
  else { totals.failed++; failures.push(name); }
  block.close();
}

async function suite(file: string, env: NodeJS.ProcessEnv, node = process.execPath): Promise<void> {
  const label = node === process.execPath ? file : `${file} [node ${nodeVersion(node)}]`;
  const block = blocks.open();
  block.write(`\n== ${label}\n`);
  const result = await runSuite(file, { env, node, cwd: root, write: (text) => block.write(text) });
  if (result.tally) tally = addTally(tally ?? emptyTally(), result.tally);
  notCounted.push(...result.notCounted.map((s) => (node === process.execPath ? s : `${s} [node ${nodeVersion(node)}]`)));
  const counted = account(label, result);
  if (result.killedAfterMs !== null) block.write(`\n${label}: killed at its time limit, with every process it started\n`);
  totals.passed += counted.passed;
  totals.skipped += counted.skipped;
  totals.failed += counted.failed;
  if (counted.failure) failures.push(counted.failure);
  block.close();
}

const versions = new Map<string, string>();
function nodeVersion(node: string): string {
  const known = versions.get(node);
  if (known) return known;
  const r = spawnSync(node, ['-p', 'process.version'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`TEST_ALSO_ON_NODE: ${node} does not run (${r.error?.message ?? r.stderr.trim()})`);
  versions.set(node, r.stdout.trim());
  return r.stdout.trim();
}

/** The extra runtimes of TEST_ALSO_ON_NODE, without the one running now. */
function otherRuntimes(): string[] {
  const list = (process.env.TEST_ALSO_ON_NODE ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return [...new Set(list)].filter((node) => nodeVersion(node) !== process.version);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const noInfra = args.includes('--no-infra');
  const filters = args.filter((a) => !a.startsWith('--'));
  if (noInfra && process.env.CI === 'true') throw new Error('--no-infra is refused when CI=true: CI skips nothing');

  const inner = process.env.STANDS_ALONE_INNER_RUN === '1';
  const all = listSuites(join(root, 'test'))
    .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
    .filter((f) => !(inner && OUTER_RUN_ONLY_SUITES.includes(f)));
  const local = all.filter((f) => !needsMoreThanNode(f));
  const servers = noInfra ? [] : all.filter(needsMoreThanNode);
  const postgresOnly = servers.filter((f) => POSTGRES_ONLY_SUITES.includes(f));
  // Whether infra/up.sh brought the servers up (settled by the server lane; false when there are none to run).
  let serversUp: (up: boolean) => void = () => {};
  const serversReady = new Promise<boolean>((resolve) => { serversUp = resolve; });
  // Settled once no suite will restart the shared PostgreSQL any more (POSTGRES_RESTARTERS done, or none to run).
  let restartsOver: () => void = () => {};
  const restartsDone = new Promise<void>((resolve) => { restartsOver = resolve; });
  const runtimes = otherRuntimes();
  console.log(`\n== suites run on node ${process.version}${servers.length > 0 ? ': the server suites in one lane, the checks and the rest in another' : ''}`);

  const checksAndLocalSuites = async () => {
    await check('typecheck (tsc --noEmit)', 'npx', ['tsc', '--noEmit', '-p', '.']);
    await check('typecheck portal (tsc --noEmit -p portal)', 'npx', ['tsc', '--noEmit', '-p', 'portal']);
    await check('lint (eslint)', 'npx', ['eslint', '.']);
    for (const file of local) await suite(file, LANE_PORTS.local);
    for (const node of runtimes) {
      for (const file of local.filter((f) => !WHOLE_RUN_SUITES.includes(f))) await suite(file, LANE_PORTS.local, node);
    }
    if (postgresOnly.length > 0 && await serversReady) {
      await restartsDone;
      for (const file of postgresOnly) await suite(file, { ...infraEnv(), ...LANE_PORTS.local });
    }
  };

  const serverSuites = async () => {
    if (servers.length === 0) { serversUp(false); restartsOver(); return; }
    const block = blocks.open();
    block.write('\n== infra/up.sh (real Kafka, schema registry, SQS server, PostgreSQL)\n');
    const up = await run(block, 'bash', ['infra/up.sh']);
    block.close();
    serversUp(up.code === 0);
    if (up.code !== 0) {
      restartsOver();
      totals.failed += servers.length;
      failures.push(`infra/up.sh exit ${up.code}: ${servers.length} server suites not run`);
      return;
    }
    const own = servers.filter((f) => !postgresOnly.includes(f));
    const restarters = own.filter((f) => POSTGRES_RESTARTERS.includes(f));
    for (const file of restarters) await suite(file, { ...infraEnv(), ...LANE_PORTS.servers });
    restartsOver();
    for (const file of own.filter((f) => !restarters.includes(f))) await suite(file, { ...infraEnv(), ...LANE_PORTS.servers });
    for (const node of runtimes) {
      for (const file of servers.filter((f) => SERVER_SUITES_ON_EVERY_RUNTIME.includes(f))) await suite(file, { ...infraEnv(), ...LANE_PORTS.servers }, node);
    }
  };

  // How long each lane took, so the next suite goes where there is room (docs/decisions.md#ci-time-two-lanes).
  const started = Date.now();
  const timed = async (lane: string, work: () => Promise<void>) => { await work(); return `${lane} ${((Date.now() - started) / 60_000).toFixed(1)} min`; };
  const lanes = await Promise.all([timed('checks and the rest', checksAndLocalSuites), timed('server suites', serverSuites)]);
  console.log(`\n== lanes: ${lanes.join(', ')}`);

  if (tally || notCounted.length) console.log(`\n${tallySummary(tally, notCounted).join('\n')}`);
  if (failures.length) console.log(`\nFailed:\n  ${failures.join('\n  ')}`);
  const skipped = totals.skipped ? `, ${totals.skipped} skipped` : '';
  console.log(`\n${totals.passed} passed, ${totals.failed} failed${skipped}`);
  process.exitCode = totals.failed > 0 ? 1 : 0;
}

main().catch((err: unknown) => {
  console.error(err);
  console.log(`\n${totals.passed} passed, ${totals.failed + 1} failed`);
  process.exitCode = 1;
});
