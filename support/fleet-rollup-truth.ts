// The fleet health rollup (device_health_days, migration 0033) against a recomputation from the stored check-ins
// (device_records), written here by hand in other SQL than fleet/health-sql.ts makes (window-free grouping for
// the sums and extremes, DISTINCT ON for the latest check-in, a grouped count for the histogram), so a wrong fold
// there is not repeated here. Used by test/integration/fleet/ and its opt-in 1M run.
import type pg from 'pg';

/** The columns both sides give, in one order (interval_s is the learned clock's, not a fold of check-ins). */
const COMPARED = `"IMEINumber", day, received, first_at, last_at, rssi_min, rssi_max,
  battery_mcu_min, battery_mcu_max, battery_mcu_last, battery_led_min, battery_led_max, battery_led_last, battery_or_line,
  connect_time_sum, connect_time_n, version, temperature_min, temperature_max,
  tempfault_reset_hours, permfault_reset_hours, current_reset, block_reset, rssi_values, rssi_counts`;

export const TRUTH_SQL = `
  with r as (select *, ("date" at time zone 'UTC')::date as day from device_records),
  agg as (
    select "IMEINumber", day, count(*)::integer as received, min("date") as first_at, max("date") as last_at,
           min(rssi) as rssi_min, max(rssi) as rssi_max,
           min("BatteryMCU") as battery_mcu_min, max("BatteryMCU") as battery_mcu_max,
           min("BatteryLED") as battery_led_min, max("BatteryLED") as battery_led_max,
           coalesce(sum("ConnectTime"::numeric), 0) as connect_time_sum, count("ConnectTime")::integer as connect_time_n,
           min("Temperature") as temperature_min, max("Temperature") as temperature_max
      from r group by 1, 2),
  latest as (
    select distinct on ("IMEINumber", day) "IMEINumber", day, "BatteryMCU", "BatteryLED", "BatteryOrLine", version,
           "Tempfault_Reset_Hours", "Permfault_Reset_Hours", "Current_Reset", "Block_Reset"
      from r order by "IMEINumber", day, "date" desc),
  -- The histogram's key: the reading within +-255 dB, to the nearest half dB (halves up).
  keyed as (select "IMEINumber", day, floor(least(greatest(rssi, -255), 255) * 2 + 0.5) / 2 as rssi from r where rssi is not null),
  counted as (select "IMEINumber", day, rssi, count(*)::integer as n from keyed group by 1, 2, 3),
  histogram as (select "IMEINumber", day, array_agg(rssi order by rssi) as vals, array_agg(n order by rssi) as counts from counted group by 1, 2)
  select a."IMEINumber", a.day, a.received, a.first_at, a.last_at, a.rssi_min, a.rssi_max,
         a.battery_mcu_min, a.battery_mcu_max, l."BatteryMCU" as battery_mcu_last, a.battery_led_min, a.battery_led_max, l."BatteryLED" as battery_led_last,
         l."BatteryOrLine" as battery_or_line, a.connect_time_sum, a.connect_time_n, l.version, a.temperature_min, a.temperature_max,
         l."Tempfault_Reset_Hours" as tempfault_reset_hours, l."Permfault_Reset_Hours" as permfault_reset_hours,
         l."Current_Reset" as current_reset, l."Block_Reset" as block_reset,
         coalesce(h.vals, '{}') as rssi_values, coalesce(h.counts, '{}') as rssi_counts
    from agg a join latest l using ("IMEINumber", day) left join histogram h using ("IMEINumber", day)`;

export interface RollupComparison {
  /** Device-days the recomputation finds. */
  truthRows: number;
  rollupRows: number;
  /** Rows of either side with no equal row on the other (0: the rollup is exact). */
  mismatches: number;
  /** Up to 5 mismatching rows, for the message. */
  examples: unknown[];
}

export async function compareRollup(pool: pg.Pool): Promise<RollupComparison> {
  const { rows: [counts] } = await pool.query<{ truth: number; rollup: number }>(
    `select (select count(*)::integer from (${TRUTH_SQL}) t) as truth, (select count(*)::integer from device_health_days) as rollup`);
  const diff = `(select 'recomputed, not in rollup' as side, * from ((${TRUTH_SQL}) except all select ${COMPARED} from device_health_days) a)
    union all (select 'in rollup, not recomputed', * from (select ${COMPARED} from device_health_days except all (${TRUTH_SQL})) b)`;
  const n = (await pool.query<{ n: number }>(`select count(*)::integer as n from (${diff}) d`)).rows[0]!.n;
  const examples = n ? (await pool.query(`select * from (${diff}) d order by 2, 3 limit 5`)).rows : [];
  return { truthRows: counts!.truth, rollupRows: counts!.rollup, mismatches: n, examples };
}
