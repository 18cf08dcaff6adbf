// `npm run bench:storage -- --compare <git-ref> --sizes 1000000,20000000`: the read API of this checkout
// against an older commit's on the same rows, per size, in one run (docs/benchmarks.md#reads-at-scale).
//
// Per size, one database is loaded on the older commit's schema (its last migration; the migration files up to
// it must be ours byte for byte) and kept between runs with `--keep`, since 20M check-ins take half an hour to
// generate. The older side's API (bench/read-server.ts, copied into its work tree under .bench-compare/) answers
// on it; then a copy of it (CREATE DATABASE ... TEMPLATE, file copy) is migrated by this checkout, timed, and this
// checkout's API answers on the copy. Each side's server runs alone in its own process: per row and caller, after
// three requests to warm, REQUESTS one at a time give the CPU per request of the API process and of PostgreSQL
// (the whole instance, from /proc: an instance of its own, started with INFRA_PORT_OFFSET/INFRA_STATE_DIR, holds
// nothing else) and the median alone; then an open loop at RATE gives p50/p99. With `--profile`, every row of this
// checkout that misses a target is asked again by a fresh server that profiles itself over those requests only
// (read-server.ts, SIGUSR2), and the profile's top owners and functions are written beside the table. `--only`
// measures the rows whose name holds one of its texts. Writes bench/results/<report>.json and .md after every size.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import pg from 'pg';
import { migrate, migrationFiles } from '../db/migrate.js';
import { createPool } from '../db/pool.js';
import { infraStateDir } from '../infra/endpoints.js';
import { summarise, table, type Profile } from '../support/cpu-profile.js';
import { serverUrl } from '../support/database.js';
import { machineInfo } from '../support/machine.js';
import { answerItems, judge, type RowVerdict, type SideFigures } from '../support/read-targets.js';
import { percentile } from '../support/stats.js';
import { newerTree, olderTree, type Side } from './compare.js';
import { getOnce, openLoop } from './open-loop.js';
import { runtimeByPid, runtimeDeltaSeconds } from './process-cpu.js';
import { CALLERS, callerTokens, FLOOR_ROWS, loadCheckIns, monthsUpTo, prepareReadDatabase, readRows, rowHeaders, type Requester } from './read-rows.js';

export interface CompareOptions {
  ref: string; sizes: number[]; devices: number; months: number; rate: number; seconds: number; connections: number;
  requests: number; keep: boolean; profile: boolean; report: string;
  /** Only the rows whose name holds one of these texts (null: every row). */
  only: readonly string[] | null;
}

/** A side's figures with the p99 of its open loop's first seconds (set apart, not judged). */
type AskedFigures = SideFigures & { firstP99?: number };
interface RowResult { endpoint: string; caller: string; older: AskedFigures; newer: AskedFigures; verdict?: RowVerdict; profile?: string }
/** One side's figures of a row, with how it was asked; a floor row's (read-rows.ts ReadRow) have no open loop. */
type MeasuredRow = AskedFigures & { path: string; headers: Record<string, string>; floor: boolean };
interface SizeResult { records: number; loadSeconds: number | null; migrateSeconds: number; rows: RowResult[] }

const WARM = 20;
/** Requests a fresh server answers before its profile starts (profileRow), so the profile holds warm code. */
const PROFILE_WARM = 500;
/** Seconds of a row's open loop asked before the measured ones and set apart (measureSide). */
const FIRST_SECONDS = 3;
/** The p99 of those seconds, as the log and the report show it beside the measured one. */
const firstSecondsText = (p99: number | undefined) => (p99 === undefined ? '' : ` (first ${FIRST_SECONDS} s: p99 ${p99})`);
const round1 = (x: number) => Math.round(x * 10) / 10;
const round2 = (x: number) => Math.round(x * 100) / 100;
const log = (s: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${s}`);

async function withAdmin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: serverUrl() });
  await c.connect();
  try { return await fn(c); } finally { await c.end(); }
}

const urlOf = (database: string) => { const u = new URL(serverUrl()); u.pathname = `/${database}`; return u.toString(); };

/** The older commit's last migration ('0041'), after checking that ours up to it are the same files. */
function olderSchema(older: Side): string {
  const theirs = readdirSync(join(older.dir, 'schemas', 'migrations')).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
  const last = theirs.at(-1)!.slice(0, 4);
  for (const f of theirs) {
    const ours = new URL(`../schemas/migrations/${f}`, import.meta.url);
    let same = false;
    try { same = readFileSync(ours, 'utf8') === readFileSync(join(older.dir, 'schemas', 'migrations', f), 'utf8'); } catch { /* missing here */ }
    if (!same) throw new Error(`--compare: migration ${f} of ${older.commit.slice(0, 12)} is not ours; the shared database cannot hold both`);
  }
  return last;
}

/**
 * The size's database on the older schema, loaded once: kept (with `--keep`) and found again by its name and
 * the row that says it was loaded to the end, so a second run measures without generating again.
 */
async function loadedDatabase(o: CompareOptions, older: Side, upTo: string, records: number, span: readonly string[]): Promise<{ name: string; loadSeconds: number | null }> {
  const name = `fl_bench_scale_${older.commit.slice(0, 12)}_${records}_${o.devices}_${o.months}`;
  const exists = await withAdmin(async (c) => (await c.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1);
  if (exists) {
    const pool = createPool({ connectionString: urlOf(name), max: 1 });
    try {
      const { rows } = await pool.query<{ records: string }>('select records from bench_scale_loaded').catch(() => ({ rows: [] as { records: string }[] }));
      if (Number(rows[0]?.records) === records) { log(`${records.toLocaleString('en')}: kept database ${name}`); return { name, loadSeconds: null }; }
    } finally { await pool.end(); }
  }
  await withAdmin(async (c) => { await c.query(`drop database if exists ${name} with (force)`); await c.query(`create database ${name}`); });
  const pool = createPool({ connectionString: urlOf(name), max: 2 });
  try {
    await migrate(pool, { upTo });
    log(`${records.toLocaleString('en')}: loading ${name} on the schema up to ${upTo}`);
    const t0 = performance.now();
    await prepareReadDatabase(pool, { devices: o.devices, months: span });
    await loadCheckIns(pool, { devices: o.devices, span, first: 0, count: records });
    await pool.query('create table bench_scale_loaded (records bigint not null)');
    await pool.query('insert into bench_scale_loaded values ($1)', [records]);
    return { name, loadSeconds: Math.round((performance.now() - t0) / 1000) };
  } finally { await pool.end(); }
}

interface Server { url: string; pid: number; line(prefix: string): Promise<string>; stop(): Promise<void> }

/** A side's read-server on `database`, from the side's work tree; `env` for a profiling run. */
async function startServer(side: Side, database: string, env: Record<string, string> = {}): Promise<Server> {
  const script = join(side.dir, 'bench', 'read-server.ts');
  if (side.dir !== newerTree().dir) copyFileSync(new URL('read-server.ts', import.meta.url), script);
  const child: ChildProcessByStdio<null, Readable, null> = spawn(process.execPath, ['--import', 'tsx', script, database],
    { cwd: side.dir, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  // The lines it printed, and who waits for one starting with a prefix.
  const lines: string[] = [];
  const waiting: { prefix: string; resolve: (l: string) => void }[] = [];
  let partial = '';
  child.stdout.on('data', (d: Buffer) => {
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop()!;
    for (const l of parts) {
      const w = waiting.findIndex((x) => l.startsWith(x.prefix));
      if (w >= 0) waiting.splice(w, 1)[0]!.resolve(l);
      else lines.push(l);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const line = (prefix: string) => {
    const seen = lines.findIndex((l) => l.startsWith(prefix));
    if (seen >= 0) return Promise.resolve(lines.splice(seen, 1)[0]!);
    return Promise.race([new Promise<string>((resolve) => waiting.push({ prefix, resolve })),
      exited.then((code) => { throw new Error(`read-server of ${side.label} exited ${code}`); })]);
  };
  const port = (JSON.parse(await line('{"port"')) as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, line, stop: async () => { child.kill('SIGTERM'); await exited; } };
}

const httpRequester = (url: string): Requester => ({ request: (path, init) => fetch(new URL(path, url), init) });

function postmasterPid(): number {
  return Number(readFileSync(join(infraStateDir(), 'run', 'postgres.pid'), 'utf8').trim());
}

/** The agent of the one-at-a-time requests (kept alive, as the open loop's and a browser's are). */
const oneAtATime = new http.Agent({ keepAlive: true, maxSockets: 1 });
const ask = (url: string, headers: Record<string, string>): Promise<number> => getOnce(oneAtATime, url, headers);

/** One request's status and the rows its answer holds (read-targets.ts answerItems). */
async function answerOf(url: string, headers: Record<string, string>): Promise<{ status: number; items: number | null }> {
  const res = await fetch(url, { headers });
  const body: unknown = res.status === 200 ? await res.json() : (await res.arrayBuffer(), null);
  return { status: res.status, items: answerItems(body) };
}

/** Every row and caller of one side: CPU per request and the median alone, then the open loop. */
async function measureSide(o: CompareOptions, server: Server, database: string, span: readonly string[]): Promise<Map<string, MeasuredRow>> {
  const requester = httpRequester(server.url);
  const pool = createPool({ connectionString: urlOf(database), max: 1 });
  const out = new Map<string, MeasuredRow>();
  try {
    const tokens = await callerTokens(requester);
    const rows = [...await readRows(requester, pool, { span, adminToken: tokens.admin }), ...FLOOR_ROWS];
    const postgres = postmasterPid();
    const measured = rows.filter((r) => o.only === null || o.only.some((text) => r.endpoint.includes(text)));
    // Every row warms before any is measured: the code they share (HTTP, routing, the token, pg's protocol) is
    // compiled by then, so the first row measured does not pay for it (it read 1.5-2x its CPU otherwise).
    for (const row of measured) {
      for (const caller of CALLERS) {
        const headers = await rowHeaders(requester, row, tokens[caller]);
        const url = new URL(row.path, server.url).toString();
        for (let i = 0; i < WARM; i++) await ask(url, headers);
      }
    }
    for (const row of measured) {
      for (const caller of CALLERS) {
        const headers = await rowHeaders(requester, row, tokens[caller]);
        const url = new URL(row.path, server.url).toString();
        const { status, items } = await answerOf(url, headers);
        // A keyset row past the end of a small size's week has no cursor to follow (the page before had no `next`);
        // a floor row is a 404 by design.
        if (row.floor ? status !== 404 : status >= 400) { log(`  ${row.endpoint} as ${caller}: HTTP ${status}, not measured`); continue; }
        for (let i = 1; i < WARM; i++) await ask(url, headers);
        const api0 = runtimeByPid(server.pid);
        const pg0 = runtimeByPid(postgres);
        const times: number[] = [];
        for (let i = 0; i < o.requests; i++) {
          const t0 = performance.now();
          await ask(url, headers);
          times.push(performance.now() - t0);
        }
        const apiCpuMs = (runtimeDeltaSeconds(api0, runtimeByPid(server.pid)) * 1000) / o.requests;
        const postgresCpuMs = (runtimeDeltaSeconds(pg0, runtimeByPid(postgres)) * 1000) / o.requests;
        // A floor row has no open loop: its answers are 404s, and it has no latency target.
        // The rate's first seconds open the pool's connections and prepare the row's statements on each (PostgreSQL
        // plans a prepared statement with its values five times per connection before it keeps a generic plan): a
        // running service has done that long before. They are asked and set apart, their p99 reported beside the
        // measured one, never judged (docs/benchmarks.md#reads-at-scale).
        const first = row.floor ? null : await openLoop({ url, rate: o.rate, seconds: FIRST_SECONDS, connections: o.connections, headers });
        const r = row.floor ? { p50: NaN, p99: NaN, non2xx: 0, errors: 0 } : await openLoop({ url, rate: o.rate, seconds: o.seconds, connections: o.connections, headers });
        const f = { ...(first ? { firstP99: first.p99 } : {}), floor: row.floor === true, items, apiCpuMs: round2(apiCpuMs), postgresCpuMs: round2(postgresCpuMs), alone: round1(percentile(times.sort((a, b) => a - b), 50)), p50: r.p50, p99: r.p99, failed: r.non2xx + r.errors, path: row.path, headers };
        out.set(`${row.endpoint}|${caller}`, f);
        log(`  ${row.endpoint.padEnd(42)} ${caller.padEnd(5)} CPU API ${f.apiCpuMs} + Postgres ${f.postgresCpuMs} ms; alone ${f.alone} ms; at ${o.rate}/s p50 ${f.p50} p99 ${f.p99}${firstSecondsText(f.firstP99)}${f.failed ? ` (${f.failed} failed)` : ''}`);
      }
    }
  } finally { await pool.end(); }
  return out;
}

/** The API's profile over REQUESTS of one row (after WARM), from a fresh server of this checkout. */
async function profileRow(o: CompareOptions, side: Side, database: string, path: string, headers: Record<string, string>): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'fl-read-prof-'));
  const file = join(dir, 'api.cpuprofile');
  try {
    const server = await startServer(side, database, { READ_SERVER_PROFILE: file });
    const url = new URL(path, server.url).toString();
    for (let i = 0; i < PROFILE_WARM; i++) await ask(url, headers);
    process.kill(server.pid, 'SIGUSR2');
    await server.line('{"profiling"');
    for (let i = 0; i < o.requests; i++) await ask(url, headers);
    await server.stop();
    const s = summarise(JSON.parse(readFileSync(file, 'utf8')) as Profile);
    return [`${s.busyMs.toFixed(0)} ms busy of ${s.totalMs.toFixed(0)} ms sampled over ${o.requests} requests one at a time (the sampler costs a few per cent).`, '',
      table('package or file', s.byOwner, s.busyMs, 8), '', table('function', s.byFunction, s.busyMs, 10)].join('\n');
  } finally { rmSync(dir, { recursive: true, force: true }); }
}

export async function runStorageCompare(o: CompareOptions): Promise<void> {
  const older = olderTree(o.ref);
  const newer = newerTree();
  const upTo = olderSchema(older);
  const span = monthsUpTo(Date.now(), o.months);
  log(`reads at scale: ${newer.label} against ${older.label} (schema up to ${upTo}), sizes ${o.sizes.map((s) => s.toLocaleString('en')).join(', ')}`);
  const results: SizeResult[] = [];
  const sizes = [...o.sizes].sort((a, b) => a - b);
  for (const records of sizes) {
    const base = await loadedDatabase(o, older, upTo, records, span);
    log(`${records.toLocaleString('en')}: ${older.label}`);
    let server = await startServer(older, base.name);
    const olderRows = await measureSide(o, server, base.name, span).finally(() => server.stop());
    const copy = `${base.name}_new`.slice(0, 63);
    await withAdmin(async (c) => { await c.query(`drop database if exists ${copy} with (force)`); await c.query(`create database ${copy} template ${base.name} strategy file_copy`); });
    const pool = createPool({ connectionString: urlOf(copy), max: 1 });
    const secondsSince = (t: number) => round1((performance.now() - t) / 1000);
    const { applied, migrateSeconds, vacuumSeconds } = await (async () => {
      try {
        const t0 = performance.now();
        const { applied } = await migrate(pool, {});
        const migrateSeconds = secondsSince(t0);
        // The migrations' back-fills leave autovacuum work behind, which it would do while the newer side is measured,
        // in the instance whose CPU is counted. The older side reads a database settled long ago; this one is settled
        // first, apart, as autovacuum would settle it within minutes of an upgrade.
        const t1 = performance.now();
        await pool.query('vacuum analyze');
        return { applied, migrateSeconds, vacuumSeconds: secondsSince(t1) };
      } finally { await pool.end(); }
    })();
    log(`${records.toLocaleString('en')}: migrated a copy to ${(await migrationFiles()).at(-1)!.slice(0, 4)} in ${migrateSeconds} s (${applied.length} migrations), vacuumed and analysed in ${vacuumSeconds} s; ${newer.label}`);
    server = await startServer(newer, copy);
    const newerRows = await measureSide(o, server, copy, span).finally(() => server.stop());
    const smallest = results[0];
    const rows: RowResult[] = [];
    for (const [key, n] of newerRows) {
      const old = olderRows.get(key);
      if (!old) continue;
      const [endpoint, caller] = key.split('|') as [string, string];
      const smallestNewer = smallest?.rows.find((r) => r.endpoint === endpoint && r.caller === caller)?.newer ?? null;
      const strip = ({ path: _p, headers: _h, floor: _f, ...f }: typeof n) => f;
      if (n.floor) { rows.push({ endpoint, caller, older: strip(old), newer: strip(n) }); continue; }
      const verdict = judge(endpoint, strip(old), strip(n), { largest: records === sizes.at(-1) && sizes.length > 1, smallest: smallestNewer });
      const row: RowResult = { endpoint, caller, older: strip(old), newer: strip(n), verdict };
      if (o.profile && (!verdict.cpuMet || verdict.p99Met === false || verdict.growthMet === false)) {
        log(`  profiling ${endpoint} (${caller})`);
        row.profile = await profileRow(o, newer, copy, n.path, n.headers);
      }
      rows.push(row);
    }
    if (!o.keep) await withAdmin(async (c) => { await c.query(`drop database if exists ${copy} with (force)`); await c.query(`drop database if exists ${base.name} with (force)`); });
    else await withAdmin((c) => c.query(`drop database if exists ${copy} with (force)`));
    results.push({ records, loadSeconds: base.loadSeconds, migrateSeconds, rows });
    write(o, older, newer, results);
  }
}

const verdictMark = (met: boolean | null) => (met === null ? '' : met ? 'met' : '**missed**');
const growthCell = (v: RowVerdict) => (v.answerGrew ? `answer ${v.answerGrew[0]} -> ${v.answerGrew[1]} rows: not judged`
  : v.growth === null ? '' : `${v.growth.toFixed(2)}x ${verdictMark(v.growthMet)}`);

function write(o: CompareOptions, older: Side, newer: Side, results: SizeResult[]): void {
  const m = machineInfo();
  const file = (ext: string) => new URL(`results/${o.report}.${ext}`, import.meta.url);
  writeFileSync(file('json'), JSON.stringify({ machine: m, older: older.commit, newer: newer.commit, options: o, sizes: results }, null, 2) + '\n');
  const fig = (f: SideFigures) => `${f.apiCpuMs} + ${f.postgresCpuMs}`;
  const lat = (f: AskedFigures) => `${f.alone} / ${f.p50} / ${f.p99}${firstSecondsText(f.firstP99)}${f.failed ? ` (${f.failed} failed)` : ''}`;
  const lines = [
    `# Reads at scale: ${newer.commit.slice(0, 12)} against ${older.commit.slice(0, 12)} (${m.date})`, '',
    `\`npm run bench:storage -- --compare ${o.ref} --sizes ${o.sizes.join(',')}\` (bench/storage-compare.ts): ${o.devices.toLocaleString('en')} devices, check-ins over ${o.months} months, the same rows for both sides (loaded once on the older schema; the newer side reads a migrated copy). Per row and caller: CPU per request in ms (API process + PostgreSQL instance), from ${o.requests} requests one at a time after ${WARM} to warm (and ${WARM} of every row before the first row is measured); "alone": their median wall time; p50 / p99: open loop at ${o.rate} requests/s for ${o.seconds} s over ${o.connections} connections, after ${FIRST_SECONDS} s at that rate set apart (they open the connections and prepare the row's statements on each; their p99 in brackets, not judged). Latencies in ms. Node ${m.node}, ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB); ${m.servers}.`, '',
    'Targets (issue 45; support/read-targets.ts): CPU new/old at most 0.3x for data-log, critical-data and device-summary first and keyset pages, 0.5x for every other row; at the largest size p99 under 50 ms (OFFSET pages deeper than 100 excepted) and "alone" within 1.3x of the smallest size (OFFSET pages excepted, and rows whose answer holds more rows at the larger size: the same answer over more history is what growth measures).', '',
  ];
  for (const s of results) {
    lines.push(`## ${s.records.toLocaleString('en')} check-ins`, '',
      `${s.loadSeconds === null ? 'Database kept from an earlier run' : `Loaded in ${s.loadSeconds} s`}; the copy migrated to this checkout's schema in ${s.migrateSeconds} s.`, '',
      '| endpoint | caller | CPU old (API + PG) | CPU new (API + PG) | new/old | CPU target | old: alone / p50 / p99 | new: alone / p50 / p99 | p99 < 50 | alone vs smallest |',
      '|---|---|---|---|---|---|---|---|---|---|',
      ...s.rows.filter((r) => r.verdict).map((r) => `| ${r.endpoint} | ${r.caller} | ${fig(r.older)} | ${fig(r.newer)} | ${r.verdict!.cpuRatio.toFixed(2)}x | ≤ ${r.verdict!.cpuTarget}x ${verdictMark(r.verdict!.cpuMet)} | ${lat(r.older)} | ${lat(r.newer)} | ${verdictMark(r.verdict!.p99Met)} | ${growthCell(r.verdict!)} |`), '');
    const floors = s.rows.filter((r) => !r.verdict);
    if (floors.length) {
      lines.push('What any read costs at least here (not judged): a signed-in request answered 404 without a statement, and with one.', '',
        '| floor | caller | CPU old (API + PG) | CPU new (API + PG) | old alone | new alone |', '|---|---|---|---|---|---|',
        ...floors.map((r) => `| ${r.endpoint.replace(/^floor: /, '')} | ${r.caller} | ${fig(r.older)} | ${fig(r.newer)} | ${r.older.alone} | ${r.newer.alone} |`), '');
    }
    for (const r of s.rows.filter((x) => x.profile)) lines.push(`### ${s.records.toLocaleString('en')}: ${r.endpoint} (${r.caller}), the API's profile`, '', r.profile!, '');
  }
  writeFileSync(file('md'), lines.join('\n'));
}
