-- Fleet health (issue 44 point 1; docs/decisions.md#fleet-health-rollup-issue-44-fleet): one row per device and
-- UTC day of its check-ins, kept by the persist stage in the transaction that stores the check-ins, from the
-- check-ins that transaction inserted (a replay or a redelivered batch inserts none, so adds nothing). The
-- columns and their folds are described once, in fleet/health-day.ts; fleet/health-sql.ts writes them.
-- Not partitioned and not in storage_partitioned_tables: raw-data retention never removes it; its own retention
-- is longer (storage/health-retention.ts).
create table device_health_days (
  "IMEINumber"           text not null,
  day                    date not null,
  received               integer not null check (received > 0),
  first_at               timestamptz not null,
  last_at                timestamptz not null,
  rssi_min               double precision,
  rssi_max               double precision,
  battery_mcu_min        double precision,
  battery_mcu_max        double precision,
  battery_mcu_last       double precision,
  battery_led_min        double precision,
  battery_led_max        double precision,
  battery_led_last       double precision,
  battery_or_line        double precision,
  connect_time_sum       numeric not null,
  connect_time_n         integer not null,
  version                text,
  temperature_min        double precision,
  temperature_max        double precision,
  tempfault_reset_hours  text,
  permfault_reset_hours  double precision,
  current_reset          text,
  block_reset            double precision,
  -- The day's RSSI readings, a count per distinct value (values ascending): the exact median of a day or a run
  -- of days, in a few pairs, since a device reports few distinct values a day.
  rssi_values            double precision[] not null,
  rssi_counts            integer[] not null,
  -- The device's learned check-in interval (checkin_clock, domain/checkin-clock.ts) when the day was written;
  -- the expected check-ins of the day come from it by the one rule (expectedPerDay), floored at read.
  interval_s             double precision,
  primary key ("IMEINumber", day),
  check (cardinality(rssi_values) = cardinality(rssi_counts))
);
-- Fleet-wide reads of a day range (the fleet summary) and retention's cut by day.
create index device_health_days_day on device_health_days (day);

-- Two histograms (values ascending, a count each) into one.
create function fl_histogram_merge(v1 double precision[], c1 integer[], v2 double precision[], c2 integer[],
                                   out vals double precision[], out counts integer[])
language sql immutable as $$
  select coalesce(array_agg(v order by v), '{}'), coalesce(array_agg(n order by v), '{}')
    from (select v, sum(n)::integer as n
            from (select * from unnest(v1, c1) a(v, n) union all select * from unnest(v2, c2) b(v, n)) x
           group by v) y
$$;

-- Back-fill from the check-ins already stored (the same folds as fleet/health-day.ts), in one pass of grouped
-- scans (no per-day lookups: the day is not indexed).
insert into device_health_days ("IMEINumber", day, received, first_at, last_at, rssi_min, rssi_max,
  battery_mcu_min, battery_mcu_max, battery_mcu_last, battery_led_min, battery_led_max, battery_led_last, battery_or_line,
  connect_time_sum, connect_time_n, version, temperature_min, temperature_max,
  tempfault_reset_hours, permfault_reset_hours, current_reset, block_reset, rssi_values, rssi_counts, interval_s)
with r as (select *, ("date" at time zone 'UTC')::date as day from device_records),
h as (
  select "IMEINumber", day, array_agg(v order by v) as vals, array_agg(n order by v) as counts
    from (select "IMEINumber", day, rssi as v, count(*)::integer as n from r where rssi is not null group by 1, 2, 3) x
   group by 1, 2),
a as (
  select "IMEINumber", day, count(*)::integer as received, min("date") as first_at, max("date") as last_at, min(rssi) as rssi_min, max(rssi) as rssi_max,
         min("BatteryMCU") as mcu_min, max("BatteryMCU") as mcu_max, (array_agg("BatteryMCU" order by "date" desc))[1] as mcu_last,
         min("BatteryLED") as led_min, max("BatteryLED") as led_max, (array_agg("BatteryLED" order by "date" desc))[1] as led_last,
         (array_agg("BatteryOrLine" order by "date" desc))[1] as battery_or_line,
         coalesce(sum("ConnectTime"::numeric), 0) as ct_sum, count("ConnectTime")::integer as ct_n,
         (array_agg(version order by "date" desc))[1] as version, min("Temperature") as t_min, max("Temperature") as t_max,
         (array_agg("Tempfault_Reset_Hours" order by "date" desc))[1] as tempfault, (array_agg("Permfault_Reset_Hours" order by "date" desc))[1] as permfault,
         (array_agg("Current_Reset" order by "date" desc))[1] as current_reset, (array_agg("Block_Reset" order by "date" desc))[1] as block_reset
    from r group by 1, 2)
select a."IMEINumber", a.day, a.received, a.first_at, a.last_at, a.rssi_min, a.rssi_max, a.mcu_min, a.mcu_max, a.mcu_last,
       a.led_min, a.led_max, a.led_last, a.battery_or_line, a.ct_sum, a.ct_n, a.version, a.t_min, a.t_max,
       a.tempfault, a.permfault, a.current_reset, a.block_reset, coalesce(h.vals, '{}'), coalesce(h.counts, '{}'), k.expected_interval_s
  from a
  left join h on h."IMEINumber" = a."IMEINumber" and h.day = a.day
  left join checkin_clock k on k."IMEINumber" = a."IMEINumber";
