// The fleet assessment (fleet-health/assess.ts) on real Postgres: check-ins of a small fleet stored through the real persist
// path (which keeps device_health_days), the assessment run in batches, and device_health compared, device by
// device, with what the pure rules (fleet/device-health.ts) say from the same check-ins folded by the pure fold.
// Also: rows of devices no longer in `devices` are removed, a moved device is judged from its move, and a
// 10,000-device fleet is assessed (its time printed, not asserted).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withTransaction } from '../../../db/transaction.js';
import type { DeviceData } from '../../../domain/checkin.js';
import { assessHealth } from '../../../fleet-health/assess.js';
import { NO_EARLIER } from '../../../fleet/battery-forecast.js';
import { addDays, dayAt, DAY_MS } from '../../../fleet/days.js';
import { assessDayOf, deviceHealth, type DeviceHealthRow } from '../../../fleet/device-health.js';
import { foldCheckIn, type HealthDay } from '../../../fleet/health-day.js';
import { persistBatch } from '../../../stages/persist/index.js';
import { computed } from '../../../support/checkins.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { seedOrganization } from '../../../support/device-data.js';
import { seededRandom } from '../../../simulator/seeded-random.js';

let db: TestDatabase;
test.before(async () => { db = await createTestDatabase('fleet-assess'); });
test.after(async () => { await db.drop(); });

const ORG = 'fa-north';
const HOUR = 3_600_000;
/** Noon: today's day row is partial, as in service. */
const NOW = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - DAY_MS / 2);
const MOVED_AT = new Date(NOW.getTime() - 10 * DAY_MS + 5 * HOUR);

interface Plan {
  imei: string;
  model: string;
  days: number;
  /** Check-in every this many hours. */
  everyH: number;
  rssi: (day: number) => number;
  connectS: number;
  batteryOrLine: number;
  /** Days (counted back from today) without check-ins. */
  silent?: (day: number) => boolean;
  voltage?: (day: number) => number;
  version?: (day: number) => string;
}

const imei = (n: number) => `35744009${String(n).padStart(7, '0')}`;
const PLANS: Plan[] = [
  { imei: imei(1), model: 'FCI-3000', days: 45, everyH: 1, rssi: () => -70, connectS: 20, batteryOrLine: 1 },
  { imei: imei(2), model: 'FCI-3000', days: 13, everyH: 2, rssi: () => -75, connectS: 15, batteryOrLine: 1 },
  { imei: imei(3), model: 'FCI-3000', days: 40, everyH: 1, rssi: () => -80, connectS: 10, batteryOrLine: 0 },
  { imei: imei(4), model: 'FI-5A E04TRB-X', days: 40, everyH: 3, rssi: () => -104, connectS: 30, batteryOrLine: 1 },
  { imei: imei(5), model: 'FCI-3000', days: 40, everyH: 2, rssi: (d) => -60 - 0.8 * d, connectS: 20, batteryOrLine: 1, version: (d) => (d < 30 ? '4.2.1' : '4.3.0') },
  // A chatty FCI-2000 with long connections: its budget ends within weeks.
  { imei: imei(6), model: 'FCI-2000', days: 50, everyH: 1, rssi: () => -90, connectS: 60, batteryOrLine: 1, silent: (d) => d % 7 === 3 },
  // Moved between organisations ten days ago: judged from its first whole day here.
  { imei: imei(7), model: 'FCI-3000', days: 40, everyH: 1, rssi: (d) => (d < 30 ? -108 : -70), connectS: 20, batteryOrLine: 1 },
  { imei: imei(8), model: 'UNKNOWN-9', days: 35, everyH: 4, rssi: () => -85, connectS: 25, batteryOrLine: 1, voltage: (d) => (d > 30 ? 3.0 : 3.6) },
];
/** In `devices`, never checked in. */
const NEVER = imei(9);
/** Deleted from `devices`: its stale row goes. */
const DELETED = imei(10);

function checkIns(p: Plan): DeviceData[] {
  const random = seededRandom(Number(p.imei.slice(-3)));
  const start = Math.floor(NOW.getTime() / DAY_MS) * DAY_MS - (p.days - 1) * DAY_MS;
  const out: DeviceData[] = [];
  for (let at = start + 17 * 60_000; at < NOW.getTime(); at += p.everyH * HOUR) {
    const d = Math.floor((at - start) / DAY_MS);
    if (p.silent?.(p.days - 1 - d)) continue;
    out.push({
      IMEINumber: p.imei, model: p.model, version: p.version?.(d) ?? '4.2.1', date: new Date(at + random.int(0, 999)).toISOString(),
      rssi: Math.round(p.rssi(d)) + random.int(-2, 2), current_status: 1, master: 0, statusPacket: null, eventPacket: null, LEDDuration: null, LEDTimer: null,
      BatteryMCU: p.voltage?.(d) ?? random.real(3.55, 3.65, 2), BatteryLED: 3.5, State: 0, FaultType: 0, BatteryOrLine: p.batteryOrLine,
      FastMode: null, Calibrated: null, AverageCurrent1m: 100, PrefaultCurrent: null, AverageCurrent1h: null, PeakCurrent24h: null,
      Tempfault_Reset_Hours: '2', Permfault_Reset_Hours: 8, SOTF: null, Brightness: null, Current_Reset: 'Auto', Block_Reset: 0,
      Ongoing_fault: 0, channel: null, gps_long: null, gps_lat: null, Program: null, ConnectTime: p.connectS + random.int(-5, 5), Temperature: 10,
    });
  }
  return out;
}

const data = new Map(PLANS.map((p) => [p.imei, checkIns(p)]));

/** What the pure rules say for a device, from its check-ins folded by the pure fold (all its days, nothing as totals). */
function expected(imeiNumber: string, model: string | null, from: string | null): DeviceHealthRow {
  const days = new Map<string, HealthDay>();
  for (const d of data.get(imeiNumber) ?? []) {
    const day = d.date.slice(0, 10);
    days.set(day, foldCheckIn(days.get(day) ?? null, d));
  }
  const list = [...days.values()].sort((a, b) => (a.day < b.day ? -1 : 1)).map((h) => assessDayOf(h, 3600));
  return deviceHealth({ IMEINumber: imeiNumber, model, clockIntervalS: imeiNumber === NEVER ? null : 3600, from, days: list, earlier: NO_EARLIER }, NOW, { floorS: 300 });
}

async function readTable(): Promise<Map<string, DeviceHealthRow>> {
  const { rows } = await db.pool.query<DeviceHealthRow>(`select "IMEINumber", to_char(assessed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as assessed_at,
      history_days, expected_7d, received_7d, expected_30d, received_30d, rssi_median_7d, rssi_slope_30d, signal, battery_status,
      to_char(battery_end_day, 'YYYY-MM-DD') as battery_end_day, battery_days_left, battery_evidence, firmware, model
    from device_health order by "IMEINumber"`);
  return new Map(rows.map((r) => [r.IMEINumber, r]));
}

test('device_health equals what the pure rules say for each device, from check-ins stored by persist', async () => {
  await seedOrganization(db.pool, ORG);
  const all = [...PLANS.map((p) => p.imei), NEVER, DELETED];
  await db.pool.query(`insert into device_information ("IMEINumber", "Real_Name", "OrganizationID", "PowerLineID") select i, i, $2, $2 || '-F12' from unnest($1::text[]) i`, [all, ORG]);
  // The learned interval (notify keeps it): persist writes it into each day row.
  await db.pool.query(`insert into checkin_clock ("IMEINumber", last_date, intervals, expected_interval_s) select i, now(), '{}', 3600 from unnest($1::text[]) i`, [PLANS.map((p) => p.imei)]);
  await db.pool.query(`update device_information set "OrganizationSince" = $2 where "IMEINumber" = $1`, [imei(7), MOVED_AT]);
  const messages = [...data.values()].flat().sort((a, b) => (a.date < b.date ? -1 : 1))
    .map((d) => computed({ device_data: d, events: [], currents: null, dm1_device: false }, { messageId: `fa-${d.IMEINumber}-${d.date}` }));
  for (let i = 0; i < messages.length; i += 500) await persistBatch(db.pool, messages.slice(i, i + 500));
  // A stale row of a device deleted since, and one of a device never registered.
  await db.pool.query(`insert into device_health ("IMEINumber", assessed_at, history_days, expected_7d, received_7d, expected_30d, received_30d, signal, battery_status)
    values ($1, now(), 0, 0, 0, 0, 0, 'unknown', 'not_enough_data'), ('999999999999999', now(), 0, 0, 0, 0, 0, 'unknown', 'not_enough_data')`, [DELETED]);
  await db.pool.query(`update device_information set deleted_at = now() where "IMEINumber" = $1`, [DELETED]);

  const result = await withTransaction(db.pool, (client) => assessHealth(client, NOW, { floorS: 300, batch: 3 }));
  assert.equal(result, { devices: PLANS.length + 1, removed: 2 });
  const table = await readTable();
  assert.equal([...table.keys()].sort(), [...PLANS.map((p) => p.imei), NEVER].sort());
  const movedFrom = addDays(dayAt(MOVED_AT), 1);
  for (const p of [...PLANS, { imei: NEVER, model: null }]) {
    const want = expected(p.imei, p.model, p.imei === imei(7) ? movedFrom : null);
    assert.equal(table.get(p.imei), want, p.imei);
  }

  // What each was built to show.
  const status = (n: number) => table.get(imei(n))!;
  assert.is(status(1).battery_status, 'ok');
  assert.is(status(2).battery_status, 'not_enough_data');
  assert.is(status(3).battery_status, 'line_powered');
  assert.is(status(4).signal, 'weak');
  assert.is(status(5).signal, 'falling');
  assert.is(status(5).firmware, '4.3.0');
  assert.is(status(6).battery_status, 'ends_soon');
  assert.ok(status(6).received_30d < status(6).expected_30d);
  assert.is(status(7).signal, 'ok', 'the weak signal before the move is not read');
  assert.is(status(7).history_days, 9);
  assert.is(status(8).battery_evidence.budgetFrom, 'default');
  assert.is(status(8).battery_status, 'ends_soon', 'the low voltage confirms');
  assert.is(table.get(NEVER)!.battery_status, 'not_enough_data');
  assert.is(table.get(NEVER)!.signal, 'unknown');
  assert.is(status(1).expected_7d, 7 * 24);
  assert.is(status(1).received_7d, 7 * 24);
});

test('a second run updates rows in place (same devices, a later instant)', async () => {
  const later = new Date(NOW.getTime() + HOUR);
  const result = await withTransaction(db.pool, (client) => assessHealth(client, later, { floorS: 300 }));
  assert.equal(result, { devices: PLANS.length + 1, removed: 0 });
  const { rows } = await db.pool.query<{ n: number; at: Date }>('select count(*)::integer as n, min(assessed_at) as at from device_health');
  assert.is(rows[0]!.n, PLANS.length + 1);
  assert.is(rows[0]!.at.getTime(), later.getTime());
});

test('10,000 devices with 35 days each are assessed in one run (time printed)', async () => {
  const n = 10_000;
  await db.pool.query(`insert into device_information ("IMEINumber", "OrganizationID") select '35744010' || lpad(g::text, 7, '0'), $1 from generate_series(1, $2::int) g`, [ORG, n]);
  await db.pool.query(`insert into device_health_days ("IMEINumber", day, received, first_at, last_at, rssi_min, rssi_max, battery_mcu_max, battery_or_line,
      connect_time_sum, connect_time_n, version, rssi_values, rssi_counts, interval_s)
    select '35744010' || lpad(g::text, 7, '0'), d::date, 24, d, d + interval '23 hours', -80 - g % 30, -70 - g % 30, 3.6, g % 3,
           24 * 20, 24, '4.2.1', array[-80 - g % 30, -70 - g % 30]::float8[], '{12,12}', 3600
      from generate_series(1, $1::int) g, generate_series($2::timestamptz - interval '34 days', $2::timestamptz, interval '1 day') d`, [n, NOW]);
  const started = process.hrtime.bigint();
  const result = await withTransaction(db.pool, (client) => assessHealth(client, NOW, { floorS: 300 }));
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  console.log(`fleet assess: ${result.devices} devices in ${Math.round(ms)} ms`);
  assert.is(result.devices, n + PLANS.length + 1);
  const { rows } = await db.pool.query<{ n: number }>(`select count(*)::integer as n from device_health where "IMEINumber" like '35744010%' and history_days = 30`);
  assert.is(rows[0]!.n, n);
});

test.run();
