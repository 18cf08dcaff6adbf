// Latency of the read interface under load (issue 4 "Done when"): p50 and p99 of data-log, events,
// critical-data and map-data under a fixed request rate, with 1,000,000 device records and
// 3,000,000 events loaded. The target is p99 under 50 ms at 200 requests per second.
//
//   npm run bench:api -- [--records 1000000] [--events-per-record 3] [--devices 2000] [--rate 200] [--seconds 20]
//
// Rows are bulk-generated in SQL (the ingest path has its own bench, bench/pipeline.bench.ts); the migration
// 0004 counters are filled by their triggers as in production. The API runs in this process on loopback,
// the load comes from bench/open-loop.ts in a child process: a request every 1/rate s, latency counted from
// when it was due (why not autocannon -R: see open-loop.ts). Writes bench/results/api.json and api.md.
// `--keep` leaves the loaded database in place and prints its URL; `--database <url>` reuses it (no load).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { createApp } from '../api/app.js';
import { listen } from '../api/server.js';
import { closePool, createPool } from '../db/pool.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { importDemoData } from '../support/reference-data.js';
import { machineInfo } from '../support/machine.js';
import type { OpenLoopResult } from './open-loop.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '1000000' }, 'events-per-record': { type: 'string', default: '3' },
    devices: { type: 'string', default: '2000' }, rate: { type: 'string', default: '200' }, seconds: { type: 'string', default: '20' },
    connections: { type: 'string', default: '20' }, 'saturation-seconds': { type: 'string', default: '10' }, keep: { type: 'boolean', default: false }, database: { type: 'string' },
  },
});
const RECORDS = Number(values.records);
const EVENTS_PER_RECORD = Number(values['events-per-record']);
const DEVICES = Number(values.devices);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const TARGET_P99_MS = 50;
/** Seconds of closed-loop load per endpoint for the saturation throughput (0: skip). */
const SATURATION_SECONDS = Number(values['saturation-seconds']);
const AUTOCANNON = new URL('../node_modules/autocannon/autocannon.js', import.meta.url).pathname;
const OPEN_LOOP = new URL('open-loop.ts', import.meta.url).pathname;

interface Result { endpoint: string; path: string; caller: string; p50: number; p90: number; p99: number; max: number; requests: number; non2xx: number; errors: number; saturationPerSecond: number | null }

async function load(pool: pg.Pool): Promise<void> {
  const perDevice = Math.ceil(RECORDS / DEVICES);
  await pool.query(`insert into device_information ("IMEINumber", "Real_Name", "Lat", "Long", "OrganizationID", "PowerLineID", "serialNumber")
    select '8620000' || lpad(g::text, 8, '0'), 'Bench pole ' || g, 41 + g / 10000.0, -87.6, 'north', case when g % 2 = 0 then 'north-F12' else 'north-F7' end, 'SN-B' || g
      from generate_series(1, $1::int) g`, [DEVICES]);
  await pool.query(`insert into group_device_links ("DeviceID", "GroupID")
    select "DeviceID", case when "DeviceID" % 2 = 0 then 'north-east' else 'north-west' end from device_information where "IMEINumber" like '8620000%'`);
  // One check-in per device every 10 minutes, newest in the last days; codes and types cycle.
  await pool.query(`insert into device_records ("IMEINumber", model, version, "date", rssi, "State", "FaultType", "BatteryOrLine", "BatteryMCU",
      "AverageCurrent1m", "PrefaultCurrent", "Ongoing_fault", "ActualOngoingFault", "ReportedOngoingFault", "CurrentName", "CurrentLat", "CurrentLong", "Temperature")
    select '8620000' || lpad(d::text, 8, '0'), 'FCI-3000', '4.2.1', now() - (r * interval '10 minutes') - (d * interval '1 second'), -70, 0, 0, 0, 3.6,
           100 + (r % 50), 90, (array[0,0,0,2,4,6,10,11])[1 + r % 8], (array[0,0,0,2,4,6,10,11])[1 + r % 8], 0, 'Bench pole ' || d, 41, -87.6, 20
      from generate_series(1, $1::int) d, generate_series(1, $2::int) r
     where (d - 1) * $2::int + r <= $3::int`, [DEVICES, perDevice, RECORDS]);
  await pool.query(`insert into event_records ("EventID", "EventTimestamp", "EventType", "PrefaultCurrent", "FaultCurrent", "RecoverCurrent",
      "PacketTimestamp", "IMEINumber", "DeviceRecordID", "ReportedEventTimestamp")
    select r."RecordID" * 10 + k, r."date" - (k * interval '10 seconds'),
           (array['PFault','TFault','Current Reset','SOTF','Overcurrent','Fault Like','Fault <50','Heartbeat'])[1 + ((r."RecordID" + k) % 8)],
           40, 400, 10, r."date", r."IMEINumber", r."RecordID", r."date" - (k * interval '10 seconds')
      from device_records r, generate_series(0, $1::int - 1) k where r."IMEINumber" like '8620000%'`, [EVENTS_PER_RECORD]);
  await pool.query(`update device_information d set "LastCheckInTime" = x.last
      from (select "IMEINumber", max("date") as last from device_records group by 1) x where x."IMEINumber" = d."IMEINumber"`);
  // What the persist stage keeps per IMEI as it stores check-ins (migration 0006).
  await pool.query(`insert into device_latest ("IMEINumber", "RecordID", "date", "ActualOngoingFault", "BatteryOrLine")
      select distinct on ("IMEINumber") "IMEINumber", "RecordID", "date", "ActualOngoingFault", "BatteryOrLine"
        from device_records order by "IMEINumber", "date" desc, "RecordID" desc
      on conflict ("IMEINumber") do nothing`);
  await pool.query('vacuum analyze');
}

/** Saturation: autocannon closed loop (each connection sends its next request when the last is answered). */
function saturation(url: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [AUTOCANNON, '--json', '-c', String(CONNECTIONS), '-d', String(SATURATION_SECONDS), '-H', `authorization=Bearer ${token}`, url], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.on('close', (code) => (code === 0 ? resolve(Math.round((JSON.parse(out) as { requests: { average: number } }).requests.average)) : reject(new Error(`autocannon exited ${code}`))));
  });
}

function openLoop(url: string, token: string): Promise<OpenLoopResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', OPEN_LOOP, url, '--connections', String(CONNECTIONS), '--seconds', String(SECONDS),
      '--rate', String(RATE), '--header', `authorization=Bearer ${token}`], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as OpenLoopResult) : reject(new Error(`open-loop exited ${code}`))));
  });
}

async function main(): Promise<void> {
  const machine = machineInfo();
  console.log(`api bench: ${RECORDS} records, ${RECORDS * EVENTS_PER_RECORD} events, ${DEVICES} devices; ${RATE} req/s for ${SECONDS} s each (${machine.cpu}, ${machine.cores} cores, node ${machine.node})`);
  const db = values.database ? existingDatabase(values.database) : await createTestDatabase('bench_api');
  try {
    if (!values.database) {
      await importDemoData(db.pool);
      const t0 = Date.now();
      await load(db.pool);
      console.log(`loaded in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    }
    const app = createApp({ readiness: {}, pool: db.pool, jwtSecret: new TextEncoder().encode('bench-secret-bench-secret-bench-secret!!') });
    const server = await listen(app, { port: 0, hostname: '127.0.0.1' });
    const token = async (email: string, password: string) => {
      const res = await app.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
      return ((await res.json()) as { accessToken: string }).accessToken;
    };
    const callers = { admin: await token('admin@north.example', 'north-Admin-Pass-1'), user: await token('east@north.example', 'north-East-Pass-1') };
    const device = '862000000000010';
    const runs: [string, string, keyof typeof callers][] = [
      ['data-log', '/device-records/data-log', 'admin'],
      ['data-log', '/device-records/data-log', 'user'],
      ['events', `/device-records/device-information/events/${device}`, 'admin'],
      ['critical-data', '/device-records/critical-data', 'admin'],
      ['critical-data', '/device-records/critical-data', 'user'],
      ['map-data', '/device-records/map-data', 'admin'],
    ];
    const results: Result[] = [];
    for (const [endpoint, path, caller] of runs) {
      const r = await openLoop(`http://127.0.0.1:${server.port}${path}`, callers[caller]);
      const saturationPerSecond = SATURATION_SECONDS > 0 ? await saturation(`http://127.0.0.1:${server.port}${path}`, callers[caller]) : null;
      const result = { endpoint, path, caller, p50: r.p50, p90: r.p90, p99: r.p99, max: r.max, requests: r.requests, non2xx: r.non2xx, errors: r.errors, saturationPerSecond };
      if (r.errorKinds.length) console.log(`  errors: ${r.errorKinds.join('; ')}`);
      results.push(result);
      console.log(`${endpoint.padEnd(14)} ${caller.padEnd(6)} p50 ${result.p50} ms  p99 ${result.p99} ms  max ${result.max} ms  ${result.requests} requests, ${result.non2xx} non-2xx, ${result.errors} errors; saturation ${saturationPerSecond ?? '-'} req/s`);
    }
    await server.close();
    const report = { machine, records: RECORDS, events: RECORDS * EVENTS_PER_RECORD, devices: DEVICES, rate: RATE, seconds: SECONDS, connections: CONNECTIONS, targetP99Ms: TARGET_P99_MS, results };
    writeFileSync(new URL('results/api.json', import.meta.url), JSON.stringify(report, null, 2) + '\n');
    const rows = results.map((r) => `| ${r.endpoint} | ${r.caller} | ${r.p50} | ${r.p90} | ${r.p99} | ${r.max} | ${r.requests} | ${r.non2xx + r.errors} | ${r.p99 < TARGET_P99_MS ? 'yes' : 'no'} | ${r.saturationPerSecond ?? '-'} |`);
    writeFileSync(new URL('results/api.md', import.meta.url), [
      `# API read latency (${machine.date})`, '',
      `${RECORDS.toLocaleString('en')} device records, ${(RECORDS * EVENTS_PER_RECORD).toLocaleString('en')} events, ${DEVICES} devices; open-loop ${RATE} req/s (bench/open-loop.ts), ${CONNECTIONS} connections, ${SECONDS} s per row. Saturation: autocannon closed loop, ${CONNECTIONS} connections, ${SATURATION_SECONDS} s (requests per second at 100% load; the load generator shares the 2 cores).`,
      `Node ${machine.node}, ${machine.cpu} (${machine.cores} cores, ${machine.memoryGiB} GiB), commit ${machine.commit}. Latencies in ms.`, '',
      `| endpoint | caller | p50 | p90 | p99 | max | requests | failed | p99 < ${TARGET_P99_MS} ms | saturation req/s |`, '|---|---|---|---|---|---|---|---|---|---|', ...rows, '',
    ].join('\n'));
    const failed = results.filter((r) => r.non2xx + r.errors > 0);
    if (failed.length) throw new Error(`requests failed: ${failed.map((r) => r.endpoint).join(', ')}`);
  } finally {
    if (values.keep || values.database) {
      await closePool(db.pool);
      console.log(`database kept: npm run bench:api -- --database ${db.url}`);
    } else {
      await db.drop();
    }
  }
}

/** A database loaded by an earlier `--keep` run: used as it is, never dropped. */
function existingDatabase(url: string): TestDatabase {
  const pool = createPool({ connectionString: url, max: 8 });
  return { url, pool, drop: () => closePool(pool) };
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
