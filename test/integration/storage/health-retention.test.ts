// Retention of fleet health (storage/health-retention.ts) on real PostgreSQL: device_health_days kept at least 36
// whole months and never less than the organisation's RetentionMonths (null: everything); days of devices no
// organisation holds keep the minimum; the fleet worker's rows of deleted devices go; run by the daily storage
// maintenance, with progress. Expected rows are recomputed here from month arithmetic on the inserted days.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { maintainStorage } from '../../../storage/maintenance.js';
import { runHealthRetention } from '../../../storage/health-retention.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { importDemoData } from '../../../support/reference-data.js';

const test = suite('fleet health retention (real Postgres)');
let db: TestDatabase;
const NOW = Date.parse('2026-11-28T12:00:00Z');
const UNREGISTERED = '869999999999001';
// Days this many whole months before NOW's month (the 5th of that month).
const MONTHS_BACK = [60, 49, 47, 37, 36, 35, 13, 11, 1, 0];
const dayBack = (n: number) => {
  const d = new Date(NOW);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - n, 5)).toISOString().slice(0, 10);
};
const monthsBefore = (day: string) => {
  const d = new Date(NOW);
  return (d.getUTCFullYear() * 12 + d.getUTCMonth()) - (Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7)) - 1);
};
/** The truth: a day stays when it is within max(36, RetentionMonths) whole months before the current month. */
const kept = (day: string, retention: number | null) => retention === null || monthsBefore(day) <= Math.max(36, retention);

async function devices(): Promise<{ imei: string; org: string }[]> {
  const { rows } = await db.pool.query<{ imei: string; org: string }>('select "IMEINumber" as imei, "OrganizationID" as org from device_information order by 1');
  return [...rows, { imei: UNREGISTERED, org: '' }];
}

async function fill(): Promise<void> {
  await db.pool.query('truncate device_health_days');
  for (const { imei } of await devices()) {
    for (const n of MONTHS_BACK) {
      const day = dayBack(n);
      await db.pool.query(`insert into device_health_days ("IMEINumber", day, received, first_at, last_at, connect_time_sum, connect_time_n, rssi_values, rssi_counts)
        values ($1, $2::date, 1, $2::date, $2::date, 0, 0, '{}', '{}')`, [imei, day]);
    }
  }
}

async function remaining(): Promise<Set<string>> {
  const { rows } = await db.pool.query<{ k: string }>(`select "IMEINumber" || ' ' || day::text as k from device_health_days`);
  return new Set(rows.map((r) => r.k));
}

async function expectRetention(retention: Record<string, number | null>): Promise<void> {
  const left = await remaining();
  let removed = 0;
  for (const { imei, org } of await devices()) {
    for (const n of MONTHS_BACK) {
      const day = dayBack(n);
      const stays = kept(day, org === '' ? 36 : retention[org] ?? null);
      if (!stays) removed++;
      assert.is(left.has(`${imei} ${day}`), stays, `${imei} (${org || 'no organisation'}) ${day}`);
    }
  }
  assert.ok(removed > 0, 'the case removes some days');
}

test.before(async () => {
  db = await createTestDatabase('health_retention');
  await importDemoData(db.pool);
});
test.after(async () => { await db?.drop(); });

test('each organisation keeps max(36, RetentionMonths) whole months; unknown devices 36; progress names each organisation', async () => {
  await db.pool.query(`update organizations set "RetentionMonths" = case "OrganizationID" when 'north' then 48 else 12 end`);
  await fill();
  const lines: string[] = [];
  const report = await runHealthRetention(db.pool, { now: NOW, progress: (l) => lines.push(l) });
  assert.is(report.skipped, false);
  await expectRetention({ north: 48, south: 12 });
  assert.ok(lines.some((l) => l.includes('organisation north keeps days from')), lines.join('\n'));
  assert.ok(lines.some((l) => l.includes('organisation south keeps days from')), lines.join('\n'));
  // Run again: nothing more goes.
  const before = (await remaining()).size;
  assert.is((await runHealthRetention(db.pool, { now: NOW })).days, 0);
  assert.is((await remaining()).size, before);
});

test('RetentionMonths null keeps every day of that organisation', async () => {
  await db.pool.query(`update organizations set "RetentionMonths" = case "OrganizationID" when 'north' then null else 40 end`);
  await fill();
  await runHealthRetention(db.pool, { now: NOW });
  await expectRetention({ north: null, south: 40 });
});

test('the fleet worker\'s rows of a deleted device go, a live device\'s stay; the daily storage maintenance runs it', async () => {
  await db.pool.query(`update organizations set "RetentionMonths" = 6`);
  await fill();
  const [live, gone] = (await devices()).filter((d) => d.org === 'north');
  await db.pool.query(`update device_information set deleted_at = now() where "IMEINumber" = $1`, [gone!.imei]);
  for (const imei of [live!.imei, gone!.imei, UNREGISTERED]) {
    await db.pool.query(`insert into device_health ("IMEINumber", assessed_at, history_days, expected_7d, received_7d, expected_30d, received_30d, signal, battery_status) values ($1, now(), 1, 1, 1, 1, 1, 'ok', 'ok')`, [imei]);
    await db.pool.query(`insert into device_silence ("IMEINumber", label, evidence, assessed_at) values ($1, 'unknown', '{}', now())`, [imei]);
    await db.pool.query(`insert into device_drift ("IMEINumber", setting, since_day, assessed_at) values ($1, 'version', current_date, now())`, [imei]);
  }
  await maintainStorage(db.pool, mkdtempSync(join(tmpdir(), 'health-retention-')), NOW);
  await expectRetention({ north: 6, south: 6 });
  for (const table of ['device_health', 'device_silence', 'device_drift']) {
    const { rows } = await db.pool.query<{ imei: string }>(`select "IMEINumber" as imei from ${table} order by 1`);
    assert.equal(rows.map((r) => r.imei), [live!.imei], table);
  }
});

test.run();
