// `npm run bench -- --compare <git-ref>`: the new commit (this checkout) against an older one, in one run.
// The older commit is checked out once in its own work tree under .bench-compare/ (its node_modules shared
// with ours when the lock files agree); then every round runs each scenario once on each side, the order
// alternating per round, on the same generated data and the same servers, and the pure half
// (support/bench-compare.ts) turns the pairs into ratios with their spread (docs/benchmarks.md#compare).
// Scenarios whose product runs only in child processes use this checkout's harness for both sides (runOnce).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { infraStateDir } from '../infra/endpoints.js';
import { machineInfo } from '../support/machine.js';
import type { ScenarioOptions, ScenarioResult } from './common.js';
import { progress } from './common.js';
import { compareMarkdown, compareRounds, verdict, type RoundPair } from '../support/bench-compare.js';

const ROOT = resolve(new URL('..', import.meta.url).pathname);
const git = (args: string[], cwd = ROOT) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

export interface Side { label: string; commit: string; dir: string }

/** The older commit's work tree, created on first use and kept for the next comparison against it. */
export function olderTree(ref: string): Side {
  let commit: string;
  try { commit = git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]); } catch { throw new Error(`--compare: "${ref}" is not a commit of this repository`); }
  const dir = join(ROOT, '.bench-compare', commit.slice(0, 12));
  if (!existsSync(join(dir, 'bench', 'run.ts'))) {
    progress(`compare: checking out ${commit.slice(0, 12)} into ${dir}`);
    mkdirSync(join(ROOT, '.bench-compare'), { recursive: true });
    rmSync(dir, { recursive: true, force: true });
    git(['worktree', 'prune']);
    git(['worktree', 'add', '--detach', dir, commit]);
  }
  if (!existsSync(join(dir, 'bench', 'run.ts'))) throw new Error(`--compare: ${ref} has no bench/run.ts to run`);
  if (!existsSync(join(dir, 'node_modules'))) {
    const sameLock = readFileSync(join(dir, 'package-lock.json'), 'utf8') === readFileSync(join(ROOT, 'package-lock.json'), 'utf8');
    if (sameLock) symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    else {
      progress(`compare: ${commit.slice(0, 12)} has other dependencies; npm ci in its work tree`);
      const ci = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'] });
      if (ci.status !== 0) throw new Error(`--compare: npm ci in ${dir} exited ${ci.status}`);
    }
  }
  return { label: `old ${commit.slice(0, 12)}`, commit, dir };
}

export function newerTree(): Side {
  const commit = git(['rev-parse', 'HEAD']);
  const dirty = git(['status', '--porcelain', '--untracked-files=no']) !== '';
  return { label: `new ${commit.slice(0, 12)}${dirty ? '+changes' : ''}`, commit: `${commit}${dirty ? '+changes' : ''}`, dir: ROOT };
}

/**
 * One scenario, one run, on one side; its result is read back from the report it writes, then removed. A
 * scenario whose product runs only in `faultline start` children (`productInChildren`) is measured by this
 * checkout's harness on both sides, the side's product named by BENCH_PRODUCT_ROOT (bench/end-to-end.bench.ts):
 * the same measurement for both, and figures the older harness lacks (the bridge's own CPU). Any other scenario
 * runs the side's own bench code, since it imports the product.
 */
function runOnce(side: Side, scenario: string, options: ScenarioOptions, productInChildren: ReadonlySet<string>): ScenarioResult {
  const report = `compare-tmp-${process.pid}`;
  const args = ['--import', 'tsx', 'bench/run.ts', '--scenario', scenario, '--runs', '1', '--messages', String(options.messages), '--devices', String(options.devices), '--no-infra', '--report', report];
  const harness = productInChildren.has(scenario) ? ROOT : side.dir;
  // Both sides measure the same servers: the older tree would otherwise look for their pid files in its own .infra.
  // The product is named here alone: a BENCH_PRODUCT_ROOT left in the caller's shell would move the new side.
  const { BENCH_PRODUCT_ROOT: _inherited, ...inherited } = process.env;
  const env = { ...inherited, INFRA_STATE_DIR: infraStateDir(), ...(harness === side.dir ? {} : { BENCH_PRODUCT_ROOT: side.dir }) };
  const run = spawnSync(process.execPath, args, { cwd: harness, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const base = join(harness, 'bench', 'results', report);
  try {
    if (run.status !== 0) throw new Error(`--compare: ${scenario} on ${side.label} exited ${run.status}`);
    const summary = JSON.parse(readFileSync(`${base}.json`, 'utf8')) as { results: ScenarioResult[] };
    const result = summary.results[0];
    if (!result) throw new Error(`--compare: ${scenario} on ${side.label} reported no result`);
    return result;
  } finally {
    for (const ext of ['json', 'md', 'svg']) rmSync(`${base}.${ext}`, { force: true });
  }
}

export async function runCompare(ref: string, scenarios: readonly string[], options: ScenarioOptions, { reportName, productInChildren }: { reportName?: string | undefined; productInChildren: ReadonlySet<string> }): Promise<void> {
  const newer = newerTree();
  const older = olderTree(ref);
  const started = performance.now();
  const pairs: RoundPair[] = [];
  for (let round = 1; round <= options.runs; round++) {
    for (const scenario of scenarios) {
      // Alternating the order cancels a drift over the run (a warming page cache, a neighbour finishing).
      const order = round % 2 === 1 ? [older, newer] : [newer, older];
      const got = new Map<Side, ScenarioResult>();
      for (const side of order) {
        progress(`compare: round ${round}/${options.runs} · ${scenario} · ${side.label}`);
        got.set(side, runOnce(side, scenario, options, productInChildren));
      }
      pairs.push({ round, scenario, newer: got.get(newer)!, older: got.get(older)! });
    }
  }
  const rows = compareRounds(pairs);
  const oneHarness = scenarios.filter((s) => productInChildren.has(s));
  const machine = machineInfo();
  const md = compareMarkdown({
    newer: newer.label, older: older.label, date: machine.date, rounds: options.runs,
    options: `${options.messages.toLocaleString('en-US')} check-ins, ${options.devices.toLocaleString('en-US')} devices, scenarios ${scenarios.join(', ')}; ${Math.round((performance.now() - started) / 1000)} s in all${oneHarness.length ? `; ${oneHarness.join(', ')} measured by the new harness on both sides, the old product from its work tree` : ''}`,
    machine: `Node ${machine.node} · ${machine.cores} cores (${machine.cpu}) · ${machine.memoryGiB} GiB · ${machine.servers}`,
  }, rows);
  const name = reportName ?? `compare-${newer.commit.slice(0, 7)}-vs-${older.commit.slice(0, 7)}`;
  const dir = join(ROOT, 'bench', 'results');
  writeFileSync(join(dir, `${name}.md`), md);
  writeFileSync(join(dir, `${name}.json`), `${JSON.stringify({ newer: newer.commit, older: older.commit, options, machine, comparisons: rows.map((r) => ({ ...r, verdict: verdict(r) })), pairs }, null, 2)}\n`);
  process.stdout.write(`${md}\nwritten: bench/results/${name}.md\n`);
}
