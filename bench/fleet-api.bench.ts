// The fleet read API at scale (issue 44, second "Done when" point): GET /api/fleet/summary and the first page of
// GET /api/fleet/devices, each at a constant rate through the open-loop generator (bench/open-loop.ts), p50/p99,
// as the organisation's admin and as a one-group user, over the read benches' generated devices and check-ins
// (bench/read-rows.ts, the one seeder). The daily rollup is written from the check-ins by the independent
// recomputation (support/fleet-rollup-truth.ts: the rows persist would have kept) and the assessment rows by the
// fleet worker's own steps (fleet-health/steps.ts), whose time is reported. The summary's device count is checked against a plain count.
//
//   npm run bench:fleet-api -- [--checkins 200000] [--devices 10000] [--rate 20] [--seconds 30] [--report fleet-api] [--keep] [--database <name>]
//
// `--keep` leaves the database; `--database <name>` measures a kept one again (check-ins added only up to a
// larger size, the rollup then rebuilt). Writes bench/results/<report>.json and .md.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { createApp } from '../api/app.js';
import { listen } from '../api/server.js';
import { createTestDatabase, openTestDatabase } from '../support/database.js';
import { withTransaction } from '../db/transaction.js';
import { DEFAULT_FLOOR_S } from '../domain/checkin-clock.js';
import { fleetSteps } from '../fleet-health/steps.js';
import { TRUTH_SQL } from '../support/fleet-rollup-truth.js';
import { machineInfo } from '../support/machine.js';
import { progress } from './common.js';
import { openLoop } from './open-loop.js';
import { loadCheckIns, monthsUpTo, prepareReadDatabase } from './read-rows.js';

const { values } = parseArgs({
  options: {
    checkins: { type: 'string', default: '200000' }, devices: { type: 'string', default: '10000' }, months: { type: 'string', default: '24' },
    rate: { type: 'string', default: '20' }, seconds: { type: 'string', default: '30' }, report: { type: 'string', default: 'fleet-api' },
    keep: { type: 'boolean', default: false }, database: { type: 'string' },
  },
});
const DEVICES = Number(values.devices);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const TARGET_P99_MS = 300;
const NOW = Date.now();
const SPAN = monthsUpTo(NOW, Number(values.months));
const round = (v: number) => Math.round(v * 10) / 10;

/** device_health_days as persist keeps it, rebuilt from the check-ins; then the fleet worker's steps, once, as it runs them. */
async function seedFleet(pool: pg.Pool): Promise<void> {
  await pool.query('truncate device_health_days, device_health, device_silence, device_drift');
  await pool.query(`insert into device_health_days ("IMEINumber", day, received, first_at, last_at, rssi_min, rssi_max,
      battery_mcu_min, battery_mcu_max, battery_mcu_last, battery_led_min, battery_led_max, battery_led_last, battery_or_line,
      connect_time_sum, connect_time_n, version, temperature_min, temperature_max,
      tempfault_reset_hours, permfault_reset_hours, current_reset, block_reset, rssi_values, rssi_counts) ${TRUTH_SQL}`);
  await pool.query('analyze device_health_days');
  for (const step of fleetSteps({ checkinFloorS: DEFAULT_FLOOR_S, offlineAfterHours: 26 })) {
    const t0 = performance.now();
    await withTransaction(pool, (client) => step.run(client, new Date(NOW)));
    progress(`  fleet worker step ${step.name}: ${Math.round(performance.now() - t0)} ms`);
  }
  await pool.query('vacuum analyze device_health_days, device_health, device_silence, device_drift');
}

async function main(): Promise<void> {
  const machine = machineInfo();
  const db = values.database ? await openTestDatabase(values.database, { poolMax: 16 }) : await createTestDatabase('bench_fleet_api', { poolMax: 16 });
  const name = new URL(db.url).pathname.slice(1);
  progress(`fleet API bench: ${DEVICES} devices, ${values.checkins} check-ins, ${RATE} req/s for ${SECONDS} s per route; database ${name}`);
  try {
    if (!values.database) await prepareReadDatabase(db.pool, { devices: DEVICES, months: SPAN });
    const loaded = Number((await db.pool.query<{ n: string }>('select count(*) as n from device_records')).rows[0]!.n);
    const size = Number(values.checkins);
    if (size > loaded) await loadCheckIns(db.pool, { devices: DEVICES, span: SPAN, first: loaded, count: size - loaded });
    const t0 = performance.now();
    await seedFleet(db.pool);
    progress(`rollup and assessments seeded in ${Math.round((performance.now() - t0) / 1000)} s`);

    const app = createApp({ readiness: {}, pool: db.pool, jwtSecret: new TextEncoder().encode('bench-secret-bench-secret-bench-secret!!'), portalDir: null });
    const server = await listen(app, { port: 0, hostname: '127.0.0.1' });
    const rows: Record<string, unknown>[] = [];
    try {
      for (const [caller, email, password] of [['admin', 'admin@north.example', 'north-Admin-Pass-1'], ['user', 'east@north.example', 'north-East-Pass-1']] as const) {
        const login = await app.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
        const headers = { authorization: `Bearer ${((await login.json()) as { accessToken: string }).accessToken}` };
        for (const path of ['/api/fleet/summary', '/api/fleet/devices?limit=50', '/api/fleet/devices?limit=50&sortBy={"field":"onlineRate7d"}']) {
          const url = `http://127.0.0.1:${server.port}${encodeURI(path)}`;
          const r = await openLoop({ url, rate: RATE, seconds: SECONDS, connections: 8, headers });
          const row = { caller, path, p50: r.p50, p99: r.p99, max: r.max, requests: r.requests, failed: r.non2xx + r.errors, met: r.p99 < TARGET_P99_MS };
          rows.push(row);
          progress(`  ${caller} ${path}: p50 ${r.p50} ms p99 ${r.p99} ms max ${r.max} ms, ${r.requests} requests, ${row.failed} failed`);
        }
        if (caller === 'admin') {
          const summary = (await (await app.request('/api/fleet/summary', { headers })).json()) as { devices: number };
          const { rows: [n] } = await db.pool.query<{ n: string }>(`select count(*) as n from device_information where "OrganizationID" = 'north' and deleted_at is null`);
          if (summary.devices !== Number(n!.n)) { process.exitCode = 1; progress(`  MISMATCH: summary says ${summary.devices} devices, the table ${n!.n}`); }
        }
      }
    } finally {
      await server.close();
    }
    const report = { machine, command: `npm run bench:fleet-api -- ${process.argv.slice(2).join(' ')}`, devices: DEVICES, checkIns: Math.max(size, loaded), rate: RATE, seconds: SECONDS, targetP99Ms: TARGET_P99_MS, rows };
    writeFileSync(new URL(`results/${values.report}.json`, import.meta.url), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(new URL(`results/${values.report}.md`, import.meta.url), [
      `# Fleet API reads at scale (${machine.date})`, '',
      `\`${report.command}\`: ${DEVICES.toLocaleString('en')} devices, ${report.checkIns.toLocaleString('en')} check-ins over ${SPAN.length} months, open loop at ${RATE} req/s for ${SECONDS} s per row, 8 connections. Node ${machine.node}, ${machine.cpu} (${machine.cores} cores), commit ${machine.commit}.`, '',
      '| caller | path | p50 ms | p99 ms | max ms | requests | failed | p99 < 300 ms |', '|---|---|---|---|---|---|---|---|',
      ...rows.map((r) => `| ${r.caller} | \`${r.path}\` | ${r.p50} | **${r.p99}** | ${r.max} | ${r.requests} | ${r.failed} | ${r.met ? 'met' : '**missed**'} |`), '',
    ].join('\n'));
    if (rows.some((r) => !r.met)) progress(`  a p99 target was missed (${round(Math.max(...rows.map((r) => r.p99 as number)))} ms)`);
  } finally {
    if (values.keep || values.database) await db.pool.end();
    else await db.drop();
  }
}

await main();
