// The fleet worker's first step (docs/decisions.md#device-health-assessment): every device's row of device_health
// (migration 0034) from its daily rollup (device_health_days) by the pure rules of fleet/device-health.ts. Devices
// are read in batches by IMEI (three statements and one upsert a batch, whatever the fleet's size): the rollup by
// a probe of its primary key a device, the days before the window as per-device totals, never row by row. A device
// no longer in `devices` loses its row.
import type pg from 'pg';
import { DEFAULT_FLOOR_S } from '../domain/checkin-clock.js';
import { NO_EARLIER, type ConsumptionTotals } from '../fleet/battery-forecast.js';
import { addDays, dayAt } from '../fleet/days.js';
import { ASSESS_DAYS, deviceHealth, REPORTED_TEXT_MAX, type AssessDay, type DeviceHealthRow } from '../fleet/device-health.js';
import type { Histogram } from '../fleet/health-day.js';

export interface AssessOptions {
  /** CHECKIN_INTERVAL_FLOOR_MINUTES in seconds: the expected check-ins' floor (domain/checkin-clock.ts expectedPerDay). */
  floorS?: number;
  /** Devices per batch. */
  batch?: number;
}

export interface AssessResult { devices: number; removed: number }

interface DeviceRow { IMEINumber: string; from_day: string | null; expected_interval_s: number | null; model: string | null }

// The first whole UTC day in the device's organisation: the day of OrganizationSince, or the next when the move
// fell during a day (that day holds the other organisation's check-ins); null for a device never moved.
const DEVICES_SQL = `
  select d."IMEINumber",
         case when d."OrganizationSince" = '-infinity' then null
              else to_char(((d."OrganizationSince" at time zone 'UTC') + interval '1 day' - interval '1 microsecond')::date, 'YYYY-MM-DD') end as from_day,
         k.expected_interval_s,
         (select left(x.model, ${REPORTED_TEXT_MAX + 1}) from device_latest l join device_records x on x."IMEINumber" = l."IMEINumber" and x."date" = l."date"
           where l."IMEINumber" = d."IMEINumber" and l."date" >= d."OrganizationSince") as model
    from device_information d
    left join checkin_clock k on k."IMEINumber" = d."IMEINumber"
   where d.deleted_at is null and d."IMEINumber" > $1::text
   order by d."IMEINumber"
   limit $2`;

// Each device's days as one JSON array of arrays in DayRow's order, by one probe of the primary key a device (rows
// in day order, no sort of the batch) and parsed by JSON.parse (cheaper than a row a day with two Postgres arrays).
const DAYS_SQL = `
  select i as "IMEINumber", w.days
    from unnest($1::text[]) i
   cross join lateral (
     select json_agg(json_build_array(h.day, h.received, h.connect_time_sum::float8, h.interval_s, h.rssi_values, h.rssi_counts,
                                      h.battery_mcu_max, h.battery_or_line, left(h.version, ${REPORTED_TEXT_MAX + 1})) order by h.day)::text as days
       from device_health_days h where h."IMEINumber" = i and h.day >= $2::date) w
   where w.days is not null`;

// The days before the window, with what retention removed of the oldest (device_health_carried, migration 0045;
// storage/health-retention.ts): one statement, so a retention run under way is seen before or after, never half.
const EARLIER_SQL = `
  select i as "IMEINumber", to_char(least(e.first_day, c.first_day), 'YYYY-MM-DD') as first_day,
         coalesce(e.messages, 0) + coalesce(c.messages, 0)::float8 as messages, coalesce(e.connect_seconds, 0) + coalesce(c.connect_seconds, 0)::float8 as connect_seconds
    from unnest($1::text[]) i
   cross join lateral (
     select min(h.day) as first_day, sum(h.received)::float8 as messages, sum(h.connect_time_sum)::float8 as connect_seconds
       from device_health_days h where h."IMEINumber" = i and h.day < $2::date) e
    left join device_health_carried c on c."IMEINumber" = i
   where e.first_day is not null or c."IMEINumber" is not null`;

/** The device_health columns, in one place for the upsert's record type and its SET list. */
const COLUMNS: readonly [keyof DeviceHealthRow, string][] = [
  ['IMEINumber', 'text'], ['assessed_at', 'timestamptz'], ['history_days', 'integer'], ['expected_7d', 'integer'], ['received_7d', 'integer'],
  ['expected_30d', 'integer'], ['received_30d', 'integer'], ['rssi_median_7d', 'double precision'], ['rssi_slope_30d', 'double precision'],
  ['signal', 'text'], ['battery_status', 'text'], ['battery_end_day', 'date'], ['battery_days_left', 'integer'], ['battery_evidence', 'jsonb'],
  ['firmware', 'text'], ['model', 'text'],
];
const q = (name: string) => `"${name}"`;
const UPSERT_SQL = `
  insert into device_health (${COLUMNS.map(([c]) => q(c)).join(', ')})
  select ${COLUMNS.map(([c]) => q(c)).join(', ')} from jsonb_to_recordset($1::jsonb) as r(${COLUMNS.map(([c, t]) => `${q(c)} ${t}`).join(', ')})
  on conflict ("IMEINumber") do update set ${COLUMNS.slice(1).map(([c]) => `${q(c)} = excluded.${q(c)}`).join(', ')}`;

const REMOVE_SQL = `
  delete from device_health h
   where not exists (select 1 from device_information d where d."IMEINumber" = h."IMEINumber" and d.deleted_at is null)`;

type DayRow = [day: string, received: number, connectSeconds: number, intervalS: number | null, rssiValues: number[], rssiCounts: number[],
  batteryMcuMax: number | null, batteryOrLine: number | null, version: string | null];

const dayOfRow = ([day, received, connectSeconds, intervalS, values, counts, batteryMcuMax, batteryOrLine, version]: DayRow): AssessDay => ({
  day, received, connectSeconds, intervalS, rssi: values.map((v, i) => [v, counts[i]!] as const) satisfies Histogram, batteryMcuMax, batteryOrLine, version,
});

/** Assesses every device in `devices` at `now` and writes device_health; in the caller's transaction. */
export async function assessHealth(client: pg.PoolClient, now: Date, o: AssessOptions = {}): Promise<AssessResult> {
  const floorS = o.floorS ?? DEFAULT_FLOOR_S;
  const batch = o.batch ?? 2000;
  const windowStart = addDays(dayAt(now), -ASSESS_DAYS);
  let after = '';
  let devices = 0;
  for (;;) {
    const { rows: batchDevices } = await client.query<DeviceRow>(DEVICES_SQL, [after, batch]);
    if (batchDevices.length === 0) break;
    const imeis = batchDevices.map((d) => d.IMEINumber);
    const { rows: dayRows } = await client.query<{ IMEINumber: string; days: string }>(DAYS_SQL, [imeis, windowStart]);
    const { rows: earlierRows } = await client.query<{ IMEINumber: string; first_day: string; messages: number; connect_seconds: number }>(EARLIER_SQL, [imeis, windowStart]);
    const days = new Map(dayRows.map((r) => [r.IMEINumber, (JSON.parse(r.days) as DayRow[]).map(dayOfRow)]));
    const earlier = new Map<string, ConsumptionTotals>(earlierRows.map((r) => [r.IMEINumber, { firstDay: r.first_day, messages: r.messages, connectSeconds: r.connect_seconds }]));
    const rows = batchDevices.map((d) => deviceHealth({
      IMEINumber: d.IMEINumber, model: d.model, clockIntervalS: d.expected_interval_s, from: d.from_day,
      days: days.get(d.IMEINumber) ?? [], earlier: earlier.get(d.IMEINumber) ?? NO_EARLIER,
    }, now, { floorS }));
    await client.query(UPSERT_SQL, [JSON.stringify(rows)]);
    devices += rows.length;
    after = imeis[imeis.length - 1]!;
    if (batchDevices.length < batch) break;
  }
  const { rowCount } = await client.query(REMOVE_SQL);
  return { devices, removed: rowCount ?? 0 };
}
