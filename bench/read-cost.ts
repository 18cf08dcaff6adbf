// Where a read's CPU goes (issue 34): for each read row (bench/read-rows.ts) and caller, the CPU one request
// costs in the API process and in Postgres, measured one request at a time on a database of --records check-ins,
// and from their sum the most such requests two cores could answer per second. The storage bench measures the
// same rows' latency at a rate; when a row's p99 is seconds, this says whether the request or the machine is
// the limit. A CPU profile of the API process over all rows is summarised beside it.
//
//   npm run bench:read-cost -- [--records 1000000] [--devices 10000] [--months 24] [--requests 40]
//        [--only <text>,...] [--path '<name>=<path>' ...] [--report read-cost]
//
// --only measures the rows whose name holds one of the texts; --path adds a row of any GET path (a route the
// storage bench does not ask, e.g. `--path 'fleet devices=/api/fleet/devices'`; `{device}` in it is the device the
// one-device rows read); --report names the results
// files, so an A/B run leaves the committed read-cost.md as it is.
// Requests go through the app in-process (app.request: routing, reach, queries, JSON, compression; not the
// HTTP socket layer). Postgres CPU is read from /proc: the database's backends. Writes
// bench/results/<report>.json and .md (default read-cost).
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { summarise, table, type Profile } from '../support/cpu-profile.js';
import { createTestDatabase } from '../support/database.js';
import { machineInfo } from '../support/machine.js';
import { pidCpuSeconds } from './process-cpu.js';
import { CALLERS, callerTokens, loadCheckIns, monthsUpTo, prepareReadDatabase, readApp, readRows, rowHeaders } from './read-rows.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '1000000' }, devices: { type: 'string', default: '10000' },
    months: { type: 'string', default: '24' }, requests: { type: 'string', default: '40' },
    only: { type: 'string' }, path: { type: 'string', multiple: true, default: [] }, report: { type: 'string', default: 'read-cost' },
  },
});
const ONLY = values.only?.split(',') ?? null;
const EXTRA_ROWS = values.path.map((arg) => {
  const at = arg.indexOf('=');
  if (at < 1 || !arg.slice(at + 1).startsWith('/')) throw new Error(`--path ${arg}: expected <name>=</path>`);
  return { endpoint: arg.slice(0, at), path: arg.slice(at + 1) };
});
const RECORDS = Number(values.records);
const DEVICES = Number(values.devices);
const SPAN = monthsUpTo(Date.now(), Number(values.months));
const REQUESTS = Number(values.requests);
const CORES = availableParallelism();

interface Cost { endpoint: string; caller: string; wallMs: number; apiCpuMs: number; postgresCpuMs: number; perSecondOnAllCores: number }

/** CPU seconds so far of the backends `pids`. The pool starts no parallel workers (db/pool.ts), so a request's Postgres CPU is its backend's. */
const postgresCpuSeconds = (pids: readonly number[]) => pids.reduce((sum, pid) => sum + pidCpuSeconds(pid), 0);

async function backendPids(pool: pg.Pool): Promise<number[]> {
  const { rows } = await pool.query<{ pid: number }>(`select pid from pg_stat_activity where datname = current_database() and backend_type = 'client backend'`);
  return rows.map((r) => r.pid);
}

async function main(): Promise<void> {
  console.log(`read cost: ${RECORDS.toLocaleString('en')} check-ins over ${DEVICES} devices and ${SPAN.length} months; ${REQUESTS} requests per row, one at a time`);
  // One connection, busy from one request to the next, so one backend answers every request (an idle one would be
  // closed after 10 s and its CPU lost from the reading).
  const db = await createTestDatabase('bench_read_cost', { poolMax: 1 });
  const session = new Session();
  try {
    await prepareReadDatabase(db.pool, { devices: DEVICES, months: SPAN });
    await loadCheckIns(db.pool, { devices: DEVICES, span: SPAN, first: 0, count: RECORDS });
    const app = readApp(db.pool);
    const callers = await callerTokens(app);
    const storageRows = await readRows(app, db.pool, { span: SPAN, adminToken: callers.admin });
    // `{device}` in a --path: the device the storage bench's one-device rows read (in both callers' reach).
    const device = storageRows.find((r) => r.endpoint === 'events (one device)')!.path.split('/').pop()!;
    const rows = [...storageRows, ...EXTRA_ROWS.map((r) => ({ ...r, path: r.path.replaceAll('{device}', device) }))]
      .filter((row) => ONLY === null || ONLY.some((text) => row.endpoint.includes(text)));
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    const costs: Cost[] = [];
    for (const row of rows) {
      for (const caller of CALLERS) {
        const headers = await rowHeaders(app, row, callers[caller]);
        const ask = async () => { const res = await app.request(row.path, { headers }); await res.arrayBuffer(); return res.status; };
        const status = await ask(); // warm: plans cached, pages in memory
        if (status >= 400) throw new Error(`${row.endpoint} as ${caller}: HTTP ${status}`);
        const pids = await backendPids(db.pool);
        const cpu0 = process.cpuUsage();
        const pg0 = postgresCpuSeconds(pids);
        const t0 = process.hrtime.bigint();
        for (let i = 0; i < REQUESTS; i++) await ask();
        const wallMs = Number(process.hrtime.bigint() - t0) / 1e6 / REQUESTS;
        const cpu = process.cpuUsage(cpu0);
        const apiCpuMs = (cpu.user + cpu.system) / 1000 / REQUESTS;
        const postgresCpuMs = ((postgresCpuSeconds(pids) - pg0) * 1000) / REQUESTS;
        const c = { endpoint: row.endpoint, caller, wallMs: round(wallMs), apiCpuMs: round(apiCpuMs), postgresCpuMs: round(postgresCpuMs), perSecondOnAllCores: Math.floor((CORES * 1000) / (apiCpuMs + postgresCpuMs)) };
        costs.push(c);
        console.log(`  ${row.endpoint.padEnd(42)} ${caller.padEnd(5)} ${c.wallMs} ms; CPU: API ${c.apiCpuMs} ms, Postgres ${c.postgresCpuMs} ms; at most ${c.perSecondOnAllCores}/s on ${CORES} cores`);
      }
    }
    const { profile } = await session.post('Profiler.stop');
    write(costs, summarise(profile as unknown as Profile));
  } finally {
    session.disconnect();
    await db.drop();
  }
}

const round = (x: number) => Math.round(x * 10) / 10;

function write(costs: Cost[], s: ReturnType<typeof summarise>): void {
  const m = machineInfo();
  writeFileSync(new URL(`results/${values.report}.json`, import.meta.url), JSON.stringify({ machine: m, records: RECORDS, devices: DEVICES, months: SPAN.length, requests: REQUESTS, costs }, null, 2) + '\n');
  writeFileSync(new URL(`results/${values.report}.md`, import.meta.url), [
    `# Read cost: CPU per request (${m.date})`, '',
    `\`npm run bench:read-cost -- --records ${RECORDS}\` (bench/read-cost.ts): ${RECORDS.toLocaleString('en')} check-ins over ${DEVICES.toLocaleString('en')} devices and ${SPAN.length} months, the storage bench's rows, ${REQUESTS} requests per row one at a time through the app in-process. Node ${m.node}, ${m.cpu} (${m.cores} cores), commit ${m.commit}; PostgreSQL of infra/.`,
    `"at most": ${CORES} cores divided by the request's CPU (API + Postgres), the ceiling of any rate on this machine with nothing else running; above it, requests queue and the p99 is the queue. The API's figures include the sampling profiler, which runs during the measurement (a few per cent).`, '',
    '| endpoint | caller | wall ms | API CPU ms | Postgres CPU ms | at most /s |', '|---|---|---|---|---|---|',
    ...costs.map((c) => `| ${c.endpoint} | ${c.caller} | ${c.wallMs} | ${c.apiCpuMs} | ${c.postgresCpuMs} | ${c.perSecondOnAllCores.toLocaleString('en')} |`), '',
    `## The API process's profile over every row`, '',
    `${s.busyMs.toFixed(0)} ms busy of ${s.totalMs.toFixed(0)} ms sampled. Self time as a share of the busy samples.`, '',
    table('package or file', s.byOwner, s.busyMs, 15), '', table('function', s.byFunction, s.busyMs, 15), '',
  ].join('\n'));
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
