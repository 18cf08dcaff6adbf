// Health retention against the battery forecast (docs/decisions.md#review-of-fleet-health-as-a-crash): the
// forecast counts the charge a cell has given since the device's first day (fleet/battery-forecast.ts), and
// retention removes the daily rows older than 36 months (storage/health-retention.ts), while a cell lasts years
// longer. A battery indicator with six years of history: the retention run, alone or at the same time as the
// fleet worker's assess step, must leave the charge spent and the forecast as they were.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { withTransaction } from '../../../db/transaction.js';
import { assessHealth } from '../../../fleet-health/assess.js';
import { runHealthRetention } from '../../../storage/health-retention.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { importDemoData } from '../../../support/reference-data.js';
import { emptyTally, reportTally, type Tally } from '../../helpers/tally.js';

const test = suite('fleet health retention and the battery forecast');
const NOW = Date.parse('2026-11-28T12:00:00Z');
const DAY = 86_400_000;
const tally: Tally = emptyTally();
let db: TestDatabase;
let imei: string;

/** A day of a battery indicator: 24 check-ins, 10 minutes connected in all. */
const addDay = (day: string) => db.pool.query(
  `insert into device_health_days ("IMEINumber", day, received, first_at, last_at, connect_time_sum, connect_time_n, battery_or_line, battery_mcu_max, rssi_values, rssi_counts, interval_s)
   values ($1, $2::date, 24, $2::date, $2::date + interval '23 hours', 600, 24, 1, 3.6, '{-80}', '{24}', 3600)`, [imei, day]);

const forecast = async () => (await db.pool.query<{ status: string; end: string | null; spent: number; first: string | null }>(
  `select battery_status as status, battery_end_day::text as "end", (battery_evidence->>'consumedMah')::float8 as spent, battery_evidence->>'rateFrom' as first
     from device_health where "IMEINumber" = $1`, [imei])).rows[0]!;
const assess = () => withTransaction(db.pool, (client) => assessHealth(client, new Date(NOW)));
const dayCount = async () => (await db.pool.query<{ n: number }>('select count(*)::int as n from device_health_days where "IMEINumber" = $1', [imei])).rows[0]!.n;

test.before(async () => {
  db = await createTestDatabase('health_retention_forecast');
  await importDemoData(db.pool);
  const { rows: [device] } = await db.pool.query<{ imei: string; org: string }>(
    `select "IMEINumber" as imei, "OrganizationID" as org from device_information where deleted_at is null order by 1 limit 1`);
  imei = device!.imei;
  await db.pool.query('update organizations set "RetentionMonths" = 12 where "OrganizationID" = $1', [device!.org]);
});
test.before.each(async () => {
  await db.pool.query('delete from device_health_days; delete from device_health');
  // Six years: a day a week until the last 40 days, then every day.
  for (let t = NOW - 6 * 365 * DAY; t < NOW - 40 * DAY; t += 7 * DAY) await addDay(new Date(t).toISOString().slice(0, 10));
  for (let t = NOW - 40 * DAY; t <= NOW; t += DAY) await addDay(new Date(t).toISOString().slice(0, 10));
});
test.after(async () => {
  reportTally('fleet health retention and the battery forecast', tally);
  await db?.drop();
});

test('retention removes the days older than 36 months; the charge spent and the forecast stay as they were', async () => {
  await assess();
  const before = await forecast();
  assert.ok(before.spent > 0 && before.status !== 'not_enough_data', JSON.stringify(before));
  const days = await dayCount();
  const r = await runHealthRetention(db.pool, { now: NOW });
  assert.ok(r.days > 0 && (await dayCount()) < days, 'the old days are gone');
  tally.faultsInjected++;
  await assess();
  const after = await forecast();
  assert.equal([after.spent, after.status, after.end], [before.spent, before.status, before.end], 'the cell has not been recharged by a deletion');
  tally.lost += Math.round(before.spent - after.spent) > 0 ? 1 : 0;
});

test('retention at the same time as assess: every assessment sees the same charge spent, before or after the deletion', async () => {
  await assess();
  const before = await forecast();
  const seen: number[] = [];
  const assessing = (async () => {
    for (let i = 0; i < 10; i++) { await assess(); seen.push((await forecast()).spent); }
  })();
  await Promise.all([assessing, runHealthRetention(db.pool, { now: NOW })]);
  tally.faultsInjected++;
  assert.equal([...new Set(seen)], [before.spent], 'no assessment saw half a deletion or lost the old charge');
});

test.run();
