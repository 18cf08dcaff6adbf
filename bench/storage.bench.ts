// Storage at utility scale (issue 19): the read API, the persist stage and month removal as the
// time-partitioned tables grow (docs/decisions.md#storage-lifecycle).
//
//   npm run bench:storage -- [--sizes 1000000,5000000,20000000] [--devices 10000] [--months 24] [--rate 200] [--seconds 10]
//   npm run bench:storage -- --compare <ref> [--sizes ...] [--requests 100] [--keep] [--profile] [--only <text>,...]   (bench/storage-compare.ts)
//
// Per size (loaded incrementally into one database, generated inside PostgreSQL with events, DM1 events and
// currents in the fixtures' proportions, support/device-data.ts): read API p50/p99 at `rate` requests/s
// open loop (bench/open-loop.ts) for each endpoint as an admin and as a group user, and bytes on disk per
// check-in. At the first size also: a twin database on today's (pre-0008) schema with the same rows, the
// persist stage's rate into each (the same generated batches), removing one month there by DELETE against
// here by dropping its partitions, migrating the twin (time per million rows), and BRIN against B-tree on
// device_records."date". Disk: about 1 GB per million check-ins (bytes per check-in in the report); the
// twin adds about that of the first size. Writes bench/results/storage.json and .md after every size.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { listen } from '../api/server.js';
import { migrate } from '../db/migrate.js';
import { addMonths, monthOfMs, monthBounds } from '../domain/storage-months.js';
import type { ComputedCheckIn } from '../schemas/avro/values.js';
import { persistBatch } from '../stages/persist/index.js';
import { checkInOf, computed } from '../support/checkins.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { addMissingColumns, generateDeviceData, seedOrganization } from '../support/device-data.js';
import { machineInfo } from '../support/machine.js';
import { getOnce, type OpenLoopResult } from './open-loop.js';
import { runStorageCompare } from './storage-compare.js';
import { CALLERS, callerTokens, loadCheckIns, monthsUpTo, prepareReadDatabase, PREFIX, readApp, readRows, registerGeneratedDevices, rowHeaders } from './read-rows.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000000,5000000,20000000' }, devices: { type: 'string', default: '10000' },
    months: { type: 'string', default: '24' }, rate: { type: 'string', default: '200' }, seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '20' }, 'persist-batches': { type: 'string', default: '40' }, report: { type: 'string', default: 'storage' },
    // --compare <ref>: the read rows only, this checkout against <ref> on the same rows (bench/storage-compare.ts).
    compare: { type: 'string' }, requests: { type: 'string', default: '100' }, keep: { type: 'boolean', default: false }, profile: { type: 'boolean', default: false }, only: { type: 'string' },
  },
});
const SIZES = values.sizes.split(',').map(Number);
const DEVICES = Number(values.devices);
const MONTHS = Number(values.months);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const PERSIST_BATCHES = Number(values['persist-batches']);
const OPEN_LOOP = new URL('open-loop.ts', import.meta.url).pathname;
const NOW = Date.now();
/** The months the load spreads over: the last MONTHS, the current one included. */
const SPAN = monthsUpTo(NOW, MONTHS);
/** A month of its own, before the span, that the removal comparison takes away again. */
const REMOVED_MONTH = addMonths(SPAN[0]!, -6);
const TABLES = ['device_records', 'device_currents', 'event_records', 'dm1_event_records'];

/** p50/p99/max at RATE open loop; `alone`: the median of SEQUENTIAL requests one at a time (the service time). */
interface Latency { endpoint: string; caller: string; p50: number; p99: number; max: number; requests: number; failed: number; alone: number }
interface SizeReport { records: number; loadSeconds: number; bytes: number; bytesPerCheckIn: number; latencies: Latency[] }
interface Report {
  machine: ReturnType<typeof machineInfo>; devices: number; months: number; rate: number; seconds: number; sizes: SizeReport[];
  persist?: { checkIns: number; partitioned: number; unpartitioned: number };
  removal?: { month: string; rows: number; dropMs: number; deleteMs: number };
  migration?: { rows: number; seconds: number; secondsPerMillion: number };
  brin?: { btreeBytes: number; brinBytes: number; btreeRangeMs: number; brinRangeMs: number };
}

const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

function openLoop(url: string, headers: Record<string, string>): Promise<OpenLoopResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', OPEN_LOOP, url, '--connections', String(CONNECTIONS), '--seconds', String(SECONDS),
      '--rate', String(RATE), ...Object.entries(headers).flatMap(([k, v]) => ['--header', `${k}=${v}`])], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as OpenLoopResult) : reject(new Error(`open-loop exited ${code}`))));
  });
}

async function tableBytes(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ b: string }>(`select sum(pg_total_relation_size(relid)) as b from (
    select relid from pg_partition_tree('device_records') union all select relid from pg_partition_tree('device_currents')
    union all select relid from pg_partition_tree('event_records') union all select relid from pg_partition_tree('dm1_event_records')) t`);
  return Number(rows[0]!.b);
}

const load = (db: TestDatabase, first: number, count: number) => loadCheckIns(db.pool, { devices: DEVICES, span: SPAN, first, count });

async function latencies(db: TestDatabase): Promise<Latency[]> {
  const app = readApp(db.pool);
  const server = await listen(app, { port: 0, hostname: '127.0.0.1' });
  try {
    const callers = await callerTokens(app);
    const paths = await readRows(app, db.pool, { span: SPAN, adminToken: callers.admin });
    const out: Latency[] = [];
    for (const row of paths) {
      const { endpoint, path } = row;
      for (const caller of CALLERS) {
        const url = `http://127.0.0.1:${server.port}${path}`;
        const headers = await rowHeaders(app, row, callers[caller]);
        const alone = await serviceTime(url, headers);
        const r = await openLoop(url, headers);
        out.push({ endpoint, caller, p50: r.p50, p99: r.p99, max: r.max, requests: r.requests, failed: r.non2xx + r.errors, alone });
        console.log(`  ${endpoint.padEnd(36)} ${caller.padEnd(5)} alone ${alone} ms; at ${RATE}/s p50 ${r.p50} ms  p99 ${r.p99} ms  (${r.requests} requests, ${r.non2xx + r.errors} failed${r.errorKinds.length ? `: ${r.errorKinds.join('; ')}` : ''})`);
      }
    }
    return out;
  } finally {
    await server.close();
  }
}

const SEQUENTIAL = 21;

/**
 * The median of SEQUENTIAL requests, each sent when the previous one is answered (after one to warm up): what
 * a request costs with no queue, so the report tells a slow endpoint from a machine the open loop overloads.
 */
async function serviceTime(url: string, headers: Record<string, string>): Promise<number> {
  const times: number[] = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  for (let i = 0; i <= SEQUENTIAL; i++) {
    const t0 = process.hrtime.bigint();
    await getOnce(agent, url, headers);
    if (i > 0) times.push(ms(t0));
  }
  agent.destroy();
  return Math.round(median(times) * 10) / 10;
}

/** Check-ins for the persist comparison (fresh IMEIs, dates in the current month); `round` makes another set. */
function persistBatches(round: number): ComputedCheckIn[][] {
  const template = checkInOf('002-permanent-fault.json');
  const base = monthBounds(monthOfMs(NOW)).fromMs;
  return Array.from({ length: PERSIST_BATCHES }, (_, b) => Array.from({ length: 100 }, (_, i) => {
    const n = (round * PERSIST_BATCHES + b) * 100 + i;
    const date = new Date(base + n * 1000).toISOString();
    const checkIn = { ...template, device_data: { ...template.device_data, IMEINumber: `86400000${String(n % 1000).padStart(7, '0')}`, date },
      events: template.events.map((e) => ({ ...e, EventID: 1000 + n, EventTimestamp: date })) };
    return computed(checkIn, { messageId: `bench-persist-${n}` });
  }));
}

async function persistRate(pool: pg.Pool, batches: ComputedCheckIn[][]): Promise<number> {
  await persistBatch(pool, batches[0]!); // connection set-up, staging tables
  const t0 = process.hrtime.bigint();
  for (const batch of batches.slice(1)) await persistBatch(pool, batch);
  return Math.round(((batches.length - 1) * 100) / (ms(t0) / 1000));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function twinComparisons(main: TestDatabase, report: Report): Promise<void> {
  console.log('today\'s schema (before migration 0008), the same rows:');
  const twin = await createTestDatabase('bench_storage_twin', { upTo: '0007' });
  try {
    await seedOrganization(twin.pool, 'north');
    await registerGeneratedDevices(twin.pool, DEVICES);
    const first = SIZES[0]!;
    await load(twin, 0, first);
    await generateDeviceData(twin.pool, { prefix: PREFIX, devices: DEVICES, first: 100_000_000, count: Math.round(first / MONTHS), months: [REMOVED_MONTH] });
    await twin.pool.query('vacuum analyze');
    // persist calls fl_ensure_month (migration 0008); today's schema has no partitions to make. It writes the
    // columns later migrations added, so the twin gets them too.
    await twin.pool.query(`create function fl_ensure_month(date) returns integer language sql as 'select 0'`);
    await addMissingColumns(twin.pool, main.pool);
    // Three rounds, alternating, each on check-ins of its own (the same set for both), so machine noise
    // falls on both sides; the median of each.
    const rates = { partitioned: [] as number[], unpartitioned: [] as number[] };
    for (let round = 0; round < 3; round++) {
      const batches = persistBatches(round);
      rates.unpartitioned.push(await persistRate(twin.pool, batches));
      rates.partitioned.push(await persistRate(main.pool, batches));
    }
    const partitioned = median(rates.partitioned), unpartitioned = median(rates.unpartitioned);
    report.persist = { checkIns: (PERSIST_BATCHES - 1) * 100, partitioned, unpartitioned };
    console.log(`  persist: ${partitioned}/s into the partitioned tables, ${unpartitioned}/s into today's`);

    // One month away: DELETE on today's tables, DROP of the partitions here (as retention does, counters kept).
    const { fromMs, untilMs } = monthBounds(REMOVED_MONTH);
    const range = [new Date(fromMs), new Date(untilMs)];
    const { rows } = await twin.pool.query<{ n: string }>('select count(*) as n from device_records where "date" >= $1 and "date" < $2', range);
    let t0 = process.hrtime.bigint();
    await twin.pool.query('begin');
    // Events by their check-in's date (PacketTimestamp): the foreign key into device_records wants them gone first.
    await twin.pool.query('delete from event_records where "PacketTimestamp" >= $1 and "PacketTimestamp" < $2', range);
    await twin.pool.query('delete from dm1_event_records where "PacketTimestamp" >= $1 and "PacketTimestamp" < $2', range);
    await twin.pool.query('delete from device_currents where "PacketTimestamp" >= $1 and "PacketTimestamp" < $2', range);
    await twin.pool.query('delete from device_records where "date" >= $1 and "date" < $2', range);
    await twin.pool.query('commit');
    const deleteMs = ms(t0);
    const suffix = REMOVED_MONTH.replace('-', '');
    t0 = process.hrtime.bigint();
    await main.pool.query('begin');
    await main.pool.query(`update device_read_counts c set records = c.records - x.n from (select "IMEINumber", count(*) as n from device_records_p${suffix} group by 1) x where c."IMEINumber" = x."IMEINumber"`);
    for (const t of TABLES) await main.pool.query(`drop table ${t}_p${suffix}`);
    await main.pool.query('commit');
    const dropMs = ms(t0);
    report.removal = { month: REMOVED_MONTH, rows: Number(rows[0]!.n), dropMs: Math.round(dropMs), deleteMs: Math.round(deleteMs) };
    console.log(`  removing ${REMOVED_MONTH} (${rows[0]!.n} check-ins and their rows): drop ${dropMs.toFixed(0)} ms, delete ${deleteMs.toFixed(0)} ms`);

    const { rows: left } = await twin.pool.query<{ n: string }>(`select (select count(*) from device_records) + (select count(*) from device_currents)
      + (select count(*) from event_records) + (select count(*) from dm1_event_records) as n`);
    await twin.pool.query('drop function fl_ensure_month(date)');
    t0 = process.hrtime.bigint();
    await migrate(twin.pool, { upTo: '0008' });
    const seconds = ms(t0) / 1000;
    report.migration = { rows: Number(left[0]!.n), seconds: Math.round(seconds * 10) / 10, secondsPerMillion: Math.round((seconds / (Number(left[0]!.n) / 1e6)) * 10) / 10 };
    console.log(`  migration 0008: ${left[0]!.n} rows of the four tables in ${seconds.toFixed(1)} s`);
  } finally {
    await twin.drop();
  }
}

async function brinAgainstBtree(db: TestDatabase, report: Report): Promise<void> {
  const mid = monthBounds(SPAN[Math.floor(SPAN.length / 2)]!).fromMs;
  const range = [new Date(mid), new Date(mid + 7 * 86_400_000)];
  const size = async (name: string) => Number((await db.pool.query<{ b: string }>(`select sum(pg_relation_size(relid)) as b from pg_partition_tree($1)`, [name])).rows[0]!.b);
  const client = await db.pool.connect();
  const timed = async () => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < 5; i++) await client.query(`select count(*), avg("AverageCurrent1m") from device_records where "date" >= $1 and "date" < $2`, range);
    return ms(t0) / 5;
  };
  try {
    await client.query('create index device_records_date_brin on device_records using brin ("date")');
    await client.query('analyze device_records');
    const brinBytes = await size('device_records_date_brin');
    const btreeBytes = await size('device_records_date_id_imei');
    // The same query planned with only the B-tree, then with only the BRIN (a bitmap scan).
    await client.query('set enable_bitmapscan = off');
    const btreeRangeMs = await timed();
    await client.query('reset enable_bitmapscan; set enable_indexscan = off; set enable_indexonlyscan = off');
    const brinRangeMs = await timed();
    await client.query('reset all');
    await client.query('drop index device_records_date_brin');
    report.brin = { btreeBytes, brinBytes, btreeRangeMs: Math.round(btreeRangeMs * 10) / 10, brinRangeMs: Math.round(brinRangeMs * 10) / 10 };
    console.log(`  device_records."date": B-tree ${(btreeBytes / 1048576).toFixed(0)} MB, ${btreeRangeMs.toFixed(1)} ms; BRIN ${(brinBytes / 1024).toFixed(0)} KB, ${brinRangeMs.toFixed(1)} ms (a week's rows counted)`);
  } finally {
    client.release();
  }
}

function write(report: Report): void {
  writeFileSync(new URL(`results/${values.report}.json`, import.meta.url), JSON.stringify(report, null, 2) + '\n');
  const sizes = report.sizes;
  const keys = sizes[0]?.latencies.map((l) => `${l.endpoint}|${l.caller}`) ?? [];
  const head = `| endpoint | caller | ${sizes.map((s) => `${s.records.toLocaleString('en')}: alone / p50 / p99`).join(' | ')} |`;
  const rows = keys.map((k) => {
    const [endpoint, caller] = k.split('|');
    return `| ${endpoint} | ${caller} | ${sizes.map((s) => { const l = s.latencies.find((x) => `${x.endpoint}|${x.caller}` === k); return l ? `${l.alone} / ${l.p50} / ${l.p99}${l.failed ? ` (${l.failed} failed)` : ''}` : '-'; }).join(' | ')} |`;
  });
  const m = report.machine;
  writeFileSync(new URL(`results/${values.report}.md`, import.meta.url), [
    `# Storage at scale (${m.date})`, '',
    `${report.devices.toLocaleString('en')} devices, check-ins spread over ${report.months} months, with events, DM1 events and currents in the fixtures' proportions; "alone": the median of ${SEQUENTIAL} requests sent one at a time (no queue); p50 / p99: open loop ${report.rate} req/s for ${report.seconds} s per row, ${CONNECTIONS} connections. Node ${m.node}, ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), commit ${m.commit}; ${m.servers}. Latencies in ms.`, '',
    `| check-ins | load s | bytes on disk (4 tables) | bytes per check-in |`, '|---|---|---|---|',
    ...sizes.map((s) => `| ${s.records.toLocaleString('en')} | ${s.loadSeconds} | ${(s.bytes / 1073741824).toFixed(2)} GiB | ${s.bytesPerCheckIn} |`), '',
    head, `|---|---|${sizes.map(() => '---').join('|')}|`, ...rows, '',
    report.persist ? `Persist stage, ${report.persist.checkIns} check-ins in batches of 100, median of 3 alternating rounds (the same check-ins for both): **${report.persist.partitioned}/s** into the partitioned tables, **${report.persist.unpartitioned}/s** into today's (${((report.persist.partitioned / report.persist.unpartitioned - 1) * 100).toFixed(1)} %).` : '',
    report.removal ? `Removing a month (${report.removal.month}, ${report.removal.rows.toLocaleString('en')} check-ins with their events and currents): **drop ${report.removal.dropMs} ms** (four partitions, counters adjusted) against **DELETE ${report.removal.deleteMs} ms** on today's tables.` : '',
    report.migration ? `Migration 0008 of a live database: ${report.migration.rows.toLocaleString('en')} rows of the four tables in ${report.migration.seconds} s: **${report.migration.secondsPerMillion} s per million rows**.` : '',
    report.brin ? `device_records."date": the B-tree (date, RecordID) include (IMEINumber) ${(report.brin.btreeBytes / 1048576).toFixed(0)} MB, a week's rows counted in ${report.brin.btreeRangeMs} ms; a BRIN ${(report.brin.brinBytes / 1024).toFixed(0)} KB, ${report.brin.brinRangeMs} ms.` : '',
    '',
  ].join('\n'));
}

async function main(): Promise<void> {
  const report: Report = { machine: machineInfo(), devices: DEVICES, months: MONTHS, rate: RATE, seconds: SECONDS, sizes: [] };
  console.log(`storage bench: sizes ${SIZES.join(', ')}; ${DEVICES} devices over ${MONTHS} months; ${RATE} req/s for ${SECONDS} s per endpoint and caller`);
  const db = await createTestDatabase('bench_storage');
  try {
    await prepareReadDatabase(db.pool, { devices: DEVICES, months: [REMOVED_MONTH, ...SPAN] });
    let loaded = 0;
    for (const size of SIZES) {
      console.log(`size ${size.toLocaleString('en')}:`);
      const t0 = process.hrtime.bigint();
      await load(db, loaded, size - loaded);
      if (loaded === 0) {
        await generateDeviceData(db.pool, { prefix: PREFIX, devices: DEVICES, first: 100_000_000, count: Math.round(size / MONTHS), months: [REMOVED_MONTH] });
        await db.pool.query('vacuum analyze');
      }
      const loadSeconds = Math.round(ms(t0) / 1000);
      loaded = size;
      if (report.sizes.length === 0) {
        await brinAgainstBtree(db, report);
        await twinComparisons(db, report);
      }
      const bytes = await tableBytes(db.pool);
      const records = Number((await db.pool.query<{ n: string }>('select count(*) as n from device_records')).rows[0]!.n);
      const lat = await latencies(db);
      report.sizes.push({ records: size, loadSeconds, bytes, bytesPerCheckIn: Math.round(bytes / records), latencies: lat });
      write(report);
    }
  } finally {
    await db.drop();
  }
}

if (values.compare === undefined) await main();
else {
  await runStorageCompare({
    ref: values.compare, sizes: SIZES, devices: DEVICES, months: MONTHS, rate: RATE, seconds: SECONDS, connections: CONNECTIONS,
    requests: Number(values.requests), keep: values.keep, profile: values.profile, only: values.only?.split(',') ?? null, report: values.report === 'storage' ? 'storage-compare' : values.report,
  });
}
