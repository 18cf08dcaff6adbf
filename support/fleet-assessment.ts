// Fleet assessment rows (device_health, device_silence, device_drift: migration 0034) for test databases whose
// devices came in through the real pipeline, so the fleet read routes have something to show in the walks
// (test/integration/api/reach-walk.test.ts, test/integration/masking/api-walk.test.ts). Made by plain SQL from
// device_health_days: not the fleet worker's rules (fleet-health/), only plausible rows of every kind the routes
// read. A test that checks the worker's conclusions runs the worker.
import type pg from 'pg';

export async function seedFleetAssessment(pool: pg.Pool, now: number): Promise<void> {
  const at = new Date(now);
  // Each device with days in the last 30: its sums; signal and battery cycle through their values by DeviceID.
  await pool.query(`
    insert into device_health ("IMEINumber", assessed_at, history_days, expected_7d, received_7d, expected_30d, received_30d,
                               rssi_median_7d, rssi_slope_30d, signal, battery_status, battery_end_day, battery_days_left, battery_evidence, firmware, model)
    select x."IMEINumber", $1, count(*)::int,
           (count(*) filter (where x.day > ($1::timestamptz at time zone 'UTC')::date - 7))::int * 24,
           coalesce(sum(x.received) filter (where x.day > ($1::timestamptz at time zone 'UTC')::date - 7), 0)::int,
           count(*)::int * 24, sum(x.received)::int,
           avg((x.rssi_min + x.rssi_max) / 2), -0.1 * (d."DeviceID" % 3),
           (array['ok', 'weak', 'falling', 'unknown'])[1 + d."DeviceID" % 4],
           (array['ok', 'ends_soon', 'not_enough_data', 'line_powered'])[1 + d."DeviceID" % 4],
           case when d."DeviceID" % 4 = 1 then ($1::timestamptz at time zone 'UTC')::date + 40 end,
           case when d."DeviceID" % 4 = 1 then 40 end,
           '{"seeded": true}', (array_agg(x.version order by x.day desc))[1], r.model
      from device_health_days x
      join device_information d on d."IMEINumber" = x."IMEINumber"
      left join lateral (select model from device_records m where m."IMEINumber" = x."IMEINumber" order by m."date" desc limit 1) r on true
     where x.day > ($1::timestamptz at time zone 'UTC')::date - 30
     group by x."IMEINumber", d."DeviceID", r.model
    on conflict ("IMEINumber") do nothing`, [at]);
  // Never commissioned: devices without a check-in; one silent device of each organisation with check-ins: unknown.
  await pool.query(`
    insert into device_silence ("IMEINumber", silent_since, label, evidence, group_key, assessed_at)
    select d."IMEINumber", null, 'never_commissioned', '{"checkIns": 0}', null, $1 from device_information d
     where d."LastCheckInTime" is null and d.deleted_at is null
    on conflict do nothing`, [at]);
  await pool.query(`
    insert into device_silence ("IMEINumber", silent_since, label, evidence, group_key, assessed_at)
    select distinct on (d."OrganizationID") d."IMEINumber", d."LastCheckInTime", 'unknown', '{"seeded": true}', null, $1
      from device_information d where d."LastCheckInTime" is not null and d.deleted_at is null
     order by d."OrganizationID", d."LastCheckInTime"
    on conflict do nothing`, [at]);
  await pool.query(`
    insert into device_drift ("IMEINumber", setting, expected, reported, since_day, assessed_at)
    select h."IMEINumber", 'version', 'profile-1.0', h.firmware, ($1::timestamptz at time zone 'UTC')::date - 3, $1
      from device_health h where h.firmware is not null and h.assessed_at = $1
    on conflict do nothing`, [at]);
}
