// Reliability reads at scale (issue 43, first "Done when" point): a seeded year of incidents on many power lines
// and devices, on top of the storage bench's check-ins, then GET /api/reliability/lines (the year) and /sections
// (the worst line, the year) each at a constant rate through the open-loop generator (bench/open-loop.ts), p50/p99;
// then both routes compared with the independent SQL count of the raw incidents (support/reliability-truth.ts)
// for every line and every line's sections: mismatches must be 0.
//
//   npm run bench:reliability -- [--checkins 0] [--lines 200] [--devices 10000] [--incidents 5000] [--rate 20] [--seconds 30] [--report reliability] [--keep] [--database <name>]
//
// The devices are the storage bench's generated ones (bench/read-rows.ts, the one seeder of the read benches),
// moved onto `lines` power lines; `--checkins 2000000,20000000` loads their check-ins (over 24 months, in
// million-row steps) up to each size in turn and measures at each. The incidents are written by SQL (lines,
// kinds, first trips spread over the measured year and the year before it, so the trend is compared too; one or
// two sections, one to five tripped indicators each) and the day tables by the incident worker's own code
// (reliability/contribution.ts, incidents/store.ts applyReliabilityDelta), one incident at a time as a step would.
// `--keep` leaves the database (its name is printed); `--database <name>` measures a kept one again without
// seeding (check-ins are added only up to a larger size) and keeps it too. Writes bench/results/<report>.json and .md after
// every size.
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { createApp } from '../api/app.js';
import { createPool } from '../db/pool.js';
import { listen } from '../api/server.js';
import { applyReliabilityDelta } from '../incidents/store.js';
import { importReferenceData } from '../reference-data/index.js';
import { reliabilityDelta, type ReliabilityKind } from '../reliability/contribution.js';
import { createTestDatabase, openTestDatabase, type TestDatabase } from '../support/database.js';
import { machineInfo } from '../support/machine.js';
import { expectedLines, expectedSections } from '../support/reliability-truth.js';
import { progress } from './common.js';
import { openLoop, type OpenLoopResult } from './open-loop.js';
import { cpuDelta, cpuSnapshot } from './process-cpu.js';
import { loadCheckIns, monthsUpTo, prepareReadDatabase, PREFIX } from './read-rows.js';

const { values } = parseArgs({
  options: {
    checkins: { type: 'string', default: '0' }, months: { type: 'string', default: '24' },
    lines: { type: 'string', default: '200' }, devices: { type: 'string', default: '10000' }, incidents: { type: 'string', default: '5000' },
    rate: { type: 'string', default: '20' }, seconds: { type: 'string', default: '30' }, report: { type: 'string', default: 'reliability' }, seed: { type: 'string', default: '43' },
    keep: { type: 'boolean', default: false }, database: { type: 'string' },
  },
});
const SIZES = values.checkins.split(',').map(Number);
const LINES = Number(values.lines);
const PER_LINE = Math.max(2, Math.floor(Number(values.devices) / LINES));
const DEVICES = LINES * PER_LINE;
/** Incidents per year: the measured one and the one before it each get this many. */
const INCIDENTS = Number(values.incidents);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const DAY = 86_400_000;
const KINDS: ReliabilityKind[] = ['permanent', 'momentary', 'momentary', 'unknown'];
const NOW = Date.now();
/** The storage bench's months (bench/storage.bench.ts): the check-ins spread over them. */
const SPAN = monthsUpTo(NOW, Number(values.months));

let rng = Number(values.seed);
const random = () => { rng = (rng * 1_103_515_245 + 12_345) % 2 ** 31; return rng / 2 ** 31; };
const pick = (n: number) => Math.floor(random() * n);
/** Device i of line l: one of the generated devices (registerDevices numbers them from 1). */
const imei = (l: number, i: number) => `${PREFIX}${String(l * PER_LINE + i + 1).padStart(8, '0')}`;
const line = (l: number) => `rel-${l}`;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const round = (v: number) => Math.round(v * 10) / 10;

interface Route {
  alone: number; p50: number; p90: number; p99: number; max: number; requests: number; non2xx: number; errors: number; targetP99Ms: number;
  /** CPU ms per request over the open loop: this process (the API and the load generator) and the whole of PostgreSQL. */
  cpuMsPerRequest?: { api: number; postgres: number };
}
interface SizeReport {
  /** When this size was measured, on which commit: a run on a kept database (--database) adds rows beside the first run's. */
  date?: string; commit?: string;
  checkIns: number;
  /** Seconds to load the check-ins up to this size from the size before (a re-measure of a kept database repeats the first run's). */
  seedSeconds: number;
  /** The 1-minute load average sampled every 5 s while the two routes were under load. */
  loadAverage: { min: number; mean: number; max: number };
  lines: Route; sections: Route; mismatches: number; mismatchSamples: string[]; linesCompared: number; sectionsCompared: number;
}
interface Report {
  machine: ReturnType<typeof machineInfo>; rate: number; seconds: number; database: string;
  /** The command of every run that measured this database, the first (the seeding) first. */
  commands?: string[];
  scale: { lines: number; devices: number; incidentsInPeriod: number; incidentsInPreviousPeriod: number; incidentsSeedSeconds: number | null };
  period: { from: string; to: string; previousFrom: string; previousTo: string }; sections: { powerLine: string };
  sizes: SizeReport[];
}

/** The generated devices on LINES lines, and INCIDENTS a year over the two years before now. */
async function seedIncidents(pool: pg.Pool): Promise<void> {
  const devices = [];
  for (let l = 0; l < LINES; l++) {
    for (let i = 0; i < PER_LINE; i++) devices.push({ IMEINumber: imei(l, i), OrganizationID: 'north', PowerLineID: line(l), Real_Name: `R${l} pole ${i}`, Lat: 40 + l * 0.01, Long: -88 + i * 0.001, SectionCustomers: 10 + pick(200), SectionLengthKm: 0.5 + pick(30) / 10 });
  }
  await importReferenceData(pool, { powerLines: Array.from({ length: LINES }, (_, l) => ({ Id: line(l), OrganizationID: 'north', name: `Reliability ${l}` })), devices });
  const client = await pool.connect();
  try {
    await client.query('begin');
    for (let n = 0; n < 2 * INCIDENTS; n++) {
      // Skewed towards a few bad lines and sections, as field data is; every other one a year earlier.
      const l = Math.floor(LINES * random() ** 2);
      const kind = KINDS[pick(KINDS.length)]!;
      const first = NOW - (n % 2) * 365 * DAY - pick(365 * DAY);
      const sections = [...new Set(Array.from({ length: 1 + pick(2) }, () => Math.floor(PER_LINE * random() ** 2)))]
        .map((i) => ({ phase: 'ABC', from: { imei: imei(l, i), name: `R${l} pole ${i}` }, to: [], spans: [], label: `R${l} section ${i}` }));
      const tripped = [...new Set(Array.from({ length: 1 + pick(5) }, () => pick(PER_LINE)))];
      const { rows: [row] } = await client.query<{ id: string }>(
        `insert into incidents ("OrganizationID", "PowerLineID", status, kind, first_trip_at, last_trip_at, opened_at, closed_at, sections, updated_at)
         values ('north', $1, 'closed', $2, $3, $3, $3, $3, $4, $3) returning id`, [line(l), kind, new Date(first), JSON.stringify(sections)]);
      await client.query(`insert into incident_devices (incident_id, "IMEINumber", "EventType", tripped_at) select $1, unnest($2::text[]), 'PFault', $3`,
        [row!.id, tripped.map((i) => imei(l, i)), new Date(first)]);
      await applyReliabilityDelta(client, reliabilityDelta(null, { organizationId: 'north', powerLineId: line(l), kind, firstTripAt: first, sections, trippedIndicators: tripped.length }));
      if ((n + 1) % 2000 === 0) progress(`  incidents: ${n + 1} of ${2 * INCIDENTS}`);
    }
    await client.query('commit');
  } finally {
    client.release();
  }
  await pool.query('analyze');
}

/** The median of 21 requests sent one at a time (after one to warm up): the service time, with no queue. */
async function serviceTime(url: string, headers: Record<string, string>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i <= 21; i++) {
    const t0 = performance.now();
    await (await fetch(url, { headers })).arrayBuffer();
    if (i > 0) times.push(performance.now() - t0);
  }
  return round(times.sort((a, b) => a - b)[10]!);
}

async function measure(url: string, headers: Record<string, string>, targetP99Ms: number, load: number[]): Promise<Route> {
  const alone = await serviceTime(url, headers);
  const sampler = setInterval(() => load.push(loadavg()[0]!), 5000);
  let r: OpenLoopResult;
  const before = cpuSnapshot();
  try {
    load.push(loadavg()[0]!);
    r = await openLoop({ url, rate: RATE, seconds: SECONDS, connections: 8, headers });
  } finally {
    clearInterval(sampler);
  }
  const cpu = cpuDelta(before, cpuSnapshot());
  const perRequest = (seconds: number) => round((seconds * 1000) / Math.max(1, r.requests));
  return { alone, p50: r.p50, p90: r.p90, p99: r.p99, max: r.max, requests: r.requests, non2xx: r.non2xx, errors: r.errors, targetP99Ms,
    cpuMsPerRequest: { api: perRequest(cpu.faultline ?? 0), postgres: perRequest(cpu.postgres ?? 0) } };
}

async function measureSize(db: TestDatabase, report: Report, checkIns: number, seedSeconds: number): Promise<SizeReport> {
  const app = createApp({ readiness: {}, pool: db.pool, jwtSecret: new TextEncoder().encode('bench-secret-bench-secret-bench-secret!!'), portalDir: null });
  const server = await listen(app, { port: 0, hostname: '127.0.0.1' });
  try {
    const login = await app.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@north.example', password: 'north-Admin-Pass-1' }) });
    const token = ((await login.json()) as { accessToken: string }).accessToken;
    const { from, to, previousFrom, previousTo } = report.period;
    const query = `from=${from.replaceAll('-', '')}&to=${to.replaceAll('-', '')}`;
    const headers = { authorization: `Bearer ${token}` };
    const url = (path: string) => `http://127.0.0.1:${server.port}${path}`;
    const load: number[] = [];
    const lines = await measure(url(`/api/reliability/lines?${query}`), headers, 300, load);
    const cpu = (r: Route) => `CPU per request: API ${r.cpuMsPerRequest?.api} ms, Postgres ${r.cpuMsPerRequest?.postgres} ms`;
    progress(`  lines    alone ${lines.alone} ms; at ${RATE}/s p50 ${lines.p50} ms  p99 ${lines.p99} ms  max ${lines.max} ms  ${lines.requests} requests, ${lines.non2xx} non-2xx, ${lines.errors} errors; ${cpu(lines)}`);
    const sections = await measure(url(`/api/reliability/sections?powerLine=${report.sections.powerLine}&${query}`), headers, 100, load);
    progress(`  sections alone ${sections.alone} ms; at ${RATE}/s p50 ${sections.p50} ms  p99 ${sections.p99} ms  max ${sections.max} ms  ${sections.requests} requests, ${sections.non2xx} non-2xx, ${sections.errors} errors; ${cpu(sections)}`);
    const loadAverage = { min: Math.min(...load), mean: round(load.reduce((a, b) => a + b, 0) / load.length), max: Math.max(...load) };
    progress(`  load average (1 min) during the runs: ${loadAverage.min} to ${loadAverage.max}, mean ${loadAverage.mean}`);

    // Equality with the independent SQL over the raw incidents: every line, and every line's sections.
    const get = async (path: string) => (await app.request(path, { headers })).json() as Promise<{ data: Record<string, any>[] }>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const mismatches: string[] = [];
    const apiLines = await get(`/api/reliability/lines?${query}`);
    const want = await expectedLines(db.pool, 'north', from, to, previousFrom, previousTo);
    if (apiLines.data.length !== want.size) mismatches.push(`lines: api ${apiLines.data.length}, sql ${want.size}`);
    let sectionsCompared = 0;
    for (const l of apiLines.data) {
      const w = want.get(l.powerLineId as string);
      for (const k of ['permanent', 'momentary', 'unknown', 'incidents', 'trippedIndicators', 'sections', 'repeatingSections'] as const) if (l[k] !== w?.[k]) mismatches.push(`${l.powerLineId} ${k}`);
      if (l.trend.previousIncidents !== w?.previousIncidents) mismatches.push(`${l.powerLineId} previous`);
      const apiSections = await get(`/api/reliability/sections?powerLine=${l.powerLineId}&${query}`);
      const ws = await expectedSections(db.pool, 'north', l.powerLineId as string, from, to, previousFrom, previousTo);
      if (apiSections.data.length !== ws.size) mismatches.push(`${l.powerLineId} sections: api ${apiSections.data.length}, sql ${ws.size}`);
      for (const s of apiSections.data) {
        sectionsCompared++;
        const e = ws.get(s.imei as string);
        for (const k of ['permanent', 'momentary', 'unknown', 'incidents', 'trippedIndicators'] as const) if (s[k] !== e?.[k]) mismatches.push(`${s.imei} ${k}`);
        if (s.trend.previousIncidents !== e?.previousIncidents) mismatches.push(`${s.imei} previous`);
      }
    }
    progress(`  API vs SQL from raw incidents: ${apiLines.data.length} lines, ${sectionsCompared} sections, ${mismatches.length} mismatches${mismatches.length ? `: ${mismatches.slice(0, 5).join(', ')}` : ''}`);
    return { date: new Date().toISOString(), commit: report.machine.commit, checkIns, seedSeconds, loadAverage, lines, sections, mismatches: mismatches.length, mismatchSamples: mismatches.slice(0, 20), linesCompared: apiLines.data.length, sectionsCompared };
  } finally {
    await server.close();
  }
}

/**
 * The PostgreSQL plans (auto_explain with ANALYZE and BUFFERS, the generic plans the pool uses) of every statement
 * of one request to each route, after two warm-up requests, into results/<report>-plans.txt: where the time of
 * the requests goes at the largest size.
 */
async function writePlans(db: TestDatabase, report: Report): Promise<void> {
  // For the new sessions of this database only, until reset: auto_explain's plans sent to the client as notices.
  const name = new URL(db.url).pathname.slice(1);
  const settings = { session_preload_libraries: 'auto_explain', 'auto_explain.log_min_duration': '0', 'auto_explain.log_analyze': 'on', 'auto_explain.log_buffers': 'on', client_min_messages: 'log' };
  for (const [k, v] of Object.entries(settings)) await db.pool.query(`alter database ${name} set ${k} = '${v}'`);
  const pool = createPool({ connectionString: db.url, max: 4 });
  let plans: string[] = [];
  pool.on('connect', (client) => { client.on('notice', (n) => { if (n.message?.startsWith('duration:')) plans.push(n.message); }); });
  try {
    const app = createApp({ readiness: {}, pool, jwtSecret: new TextEncoder().encode('bench-secret-bench-secret-bench-secret!!'), portalDir: null });
    const login = await app.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@north.example', password: 'north-Admin-Pass-1' }) });
    const headers = { authorization: `Bearer ${((await login.json()) as { accessToken: string }).accessToken}` };
    const query = `from=${report.period.from.replaceAll('-', '')}&to=${report.period.to.replaceAll('-', '')}`;
    const out: string[] = [];
    for (const path of [`/api/reliability/lines?${query}`, `/api/reliability/sections?powerLine=${report.sections.powerLine}&${query}`]) {
      for (let i = 0; i < 3; i++) {
        plans = [];
        const t0 = performance.now();
        await (await app.request(path, { headers })).arrayBuffer();
        if (i === 2) out.push(`## GET ${path}: ${round(performance.now() - t0)} ms in the app (its third request), ${plans.length} statements`, ...plans, '');
      }
    }
    const last = report.sizes.at(-1)!;
    writeFileSync(new URL(`results/${values.report}-plans.txt`, import.meta.url), [
      `# PostgreSQL auto_explain (analyze, buffers; the generic plans the API's pool uses) of one request to each reliability route at ${last.checkIns.toLocaleString('en')} check-ins, ${report.scale.incidentsInPeriod.toLocaleString('en')} incidents in the period; ${report.machine.date}, commit ${report.machine.commit}, load average ${loadavg()[0]}`,
      '', ...out,
    ].join('\n'));
  } finally {
    await pool.end();
    await db.pool.query(`alter database ${name} reset all`);
  }
}

/** The report an earlier run on the database `name` wrote, if results/<report>.json is one. */
function previousReport(name: string): Report | null {
  try {
    const r = JSON.parse(readFileSync(new URL(`results/${values.report}.json`, import.meta.url), 'utf8')) as Report;
    return r.database === name ? { ...r, sizes: r.sizes.map((s) => ({ date: r.machine.date, commit: r.machine.commit, ...s })) } : null;
  } catch {
    return null;
  }
}

function write(report: Report): void {
  writeFileSync(new URL(`results/${values.report}.json`, import.meta.url), `${JSON.stringify(report, null, 2)}\n`);
  const m = report.machine;
  const cell = (r: Route) => `${r.alone} / ${r.p50} / **${r.p99}** / ${r.max}${r.non2xx + r.errors ? ` (${r.non2xx + r.errors} failed)` : ''}${r.cpuMsPerRequest ? `; CPU ${r.cpuMsPerRequest.api} + ${r.cpuMsPerRequest.postgres}` : ''}`;
  const met = (r: Route) => (r.p99 < r.targetP99Ms ? 'met' : '**missed**');
  writeFileSync(new URL(`results/${values.report}.md`, import.meta.url), [
    `# Reliability reads at scale (${m.date})`, '',
    `Issue 43's first "Done when" point: ${(report.commands ?? []).map((c) => `\`${c}\``).join(', then ')}. ${report.scale.lines} power lines, ${report.scale.devices.toLocaleString('en')} devices (the storage bench's generated devices, with its check-ins over ${SPAN.length} months: bench/read-rows.ts loadCheckIns), ${report.scale.incidentsInPeriod.toLocaleString('en')} incidents in the measured period ${report.period.from} to ${report.period.to} and ${report.scale.incidentsInPreviousPeriod.toLocaleString('en')} in the previous one (${report.period.previousFrom} to ${report.period.previousTo}). Lines: GET /api/reliability/lines for the period; sections: GET /api/reliability/sections?powerLine=${report.sections.powerLine} (the line with the most incidents). Open loop at ${report.rate} req/s for ${report.seconds} s per route, 8 connections, as the organisation's admin; "alone": the median of 21 requests sent one at a time (the service time, no queue). Latencies in ms. Node ${m.node}, ${m.cpu} (${m.cores} cores shared with other work, ${m.memoryGiB} GiB), commit ${m.commit}; ${m.servers}.`, '',
    '| measured (UTC), commit | check-ins | seeding s | load average (1 min) during the runs | lines: alone / p50 / p99 / max; CPU ms per request API + Postgres | target p99 < 300 | sections: alone / p50 / p99 / max; CPU | target p99 < 100 | API vs SQL (lines, sections compared) |',
    '|---|---|---|---|---|---|---|---|---|',
    ...report.sizes.map((s) => `| ${s.date?.slice(0, 16).replace('T', ' ') ?? m.date.slice(0, 16).replace('T', ' ')}, ${s.commit ?? m.commit} | ${s.checkIns.toLocaleString('en')} | ${s.seedSeconds} | ${s.loadAverage.min} to ${s.loadAverage.max} (mean ${s.loadAverage.mean}) | ${cell(s.lines)} | ${met(s.lines)} | ${cell(s.sections)} | ${met(s.sections)} | **${s.mismatches} mismatches** (${s.linesCompared}, ${s.sectionsCompared}) |`),
    '',
    `Seeding: the check-ins as bench/storage.bench.ts makes them (generated inside PostgreSQL, a million per step, then VACUUM ANALYZE), the seconds to reach each size from the one before; the incidents and their day tables took ${report.scale.incidentsSeedSeconds ?? '(seeded by an earlier run)'} s.`,
    `The equality check: for every line in the lines answer, its kinds, incidents, tripped indicators, sections, repeating sections and previous-period incidents against support/reliability-truth.ts (SQL over incidents and incident_devices only), and the same for every section of every line.`,
    '',
  ].join('\n'));
}

async function main(): Promise<void> {
  const machine = machineInfo();
  progress(`reliability bench: check-ins ${SIZES.join(', ')}; ${INCIDENTS} incidents a year over ${LINES} lines and ${DEVICES} devices; ${RATE} req/s for ${SECONDS} s per route (${machine.cpu}, ${machine.cores} cores)`);
  const db = values.database ? await openTestDatabase(values.database, { poolMax: 16 }) : await createTestDatabase('bench_reliability', { poolMax: 16 });
  const name = new URL(db.url).pathname.slice(1);
  progress(`database ${name}${values.keep ? ' (kept at the end: --database ' + name + ' measures it again)' : ''}`);
  try {
    let incidentsSeedSeconds: number | null = null;
    if (!values.database) {
      const t0 = performance.now();
      await prepareReadDatabase(db.pool, { devices: DEVICES, months: SPAN });
      await seedIncidents(db.pool);
      incidentsSeedSeconds = Math.round((performance.now() - t0) / 1000);
      progress(`devices, lines and ${2 * INCIDENTS} incidents seeded in ${incidentsSeedSeconds} s`);
    }
    const [from, to, previousFrom, previousTo] = [day(NOW - 364 * DAY), day(NOW), day(NOW - 729 * DAY), day(NOW - 365 * DAY)];
    const count = async (a: string, b: string) => Number((await db.pool.query<{ n: string }>(
      `select count(*) as n from incidents where (first_trip_at at time zone 'UTC')::date between $1 and $2`, [a, b])).rows[0]!.n);
    const worst = (await db.pool.query<{ line: string }>(`select "PowerLineID" as line from incidents where (first_trip_at at time zone 'UTC')::date between $1 and $2
      group by 1 order by count(*) desc, 1 limit 1`, [from, to])).rows[0]!.line;
    const report: Report = {
      machine, rate: RATE, seconds: SECONDS, database: name,
      scale: { lines: LINES, devices: DEVICES, incidentsInPeriod: await count(from, to), incidentsInPreviousPeriod: await count(previousFrom, previousTo), incidentsSeedSeconds },
      period: { from, to, previousFrom, previousTo }, sections: { powerLine: worst }, sizes: [],
    };
    // Measuring a kept database again: the first run's rows (and seeding times) stay, the new ones are added.
    const earlier = values.database ? previousReport(name) : null;
    if (earlier) {
      report.sizes = earlier.sizes;
      report.scale.incidentsSeedSeconds = earlier.scale.incidentsSeedSeconds;
      report.commands = earlier.commands ?? [`(a run that seeded it, measuring at ${earlier.sizes.map((x) => x.checkIns).join(', ')} check-ins)`];
    }
    report.commands = [...(report.commands ?? []), `npm run bench:reliability -- ${process.argv.slice(2).join(' ')}`];
    for (const size of SIZES) {
      const loaded = Number((await db.pool.query<{ n: string }>('select count(*) as n from device_records')).rows[0]!.n);
      const t0 = performance.now();
      if (size > loaded) {
        progress(`check-ins: ${loaded.toLocaleString('en')} loaded, loading to ${size.toLocaleString('en')}`);
        await loadCheckIns(db.pool, { devices: DEVICES, span: SPAN, first: loaded, count: size - loaded });
      }
      const checkIns = Math.max(size, loaded);
      const seedSeconds = size > loaded ? Math.round((performance.now() - t0) / 1000) : (report.sizes.find((s) => s.checkIns === checkIns)?.seedSeconds ?? 0);
      progress(`${checkIns.toLocaleString('en')} check-ins (${seedSeconds} s to load):`);
      report.sizes.push(await measureSize(db, report, checkIns, seedSeconds));
      write(report);
      if (report.sizes.at(-1)!.mismatches > 0) process.exitCode = 1;
    }
    await writePlans(db, report);
  } finally {
    if (values.keep || values.database) await db.pool.end();
    else await db.drop();
  }
}

await main();
