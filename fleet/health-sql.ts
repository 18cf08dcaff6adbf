// The SQL of the daily health rollup (docs/decisions.md#fleet-health-rollup-issue-44-fleet), made from the one
// column table of health-day.ts: a batch's stored check-ins grouped per device and UTC day with each column's
// fold, then merged into device_health_days (migration 0033) with the same fold. Pure text: the persist stage
// runs it in the batch's transaction, on the check-ins that transaction inserted.
import { HEALTH_COLUMNS, HISTOGRAM, type HealthColumn } from './health-day.js';

const q = (name: string) => `"${name}"`;
const TABLE = 'device_health_days';

/** A column's fold over a group of check-ins (`date` is the check-in's time). */
function aggregate(col: HealthColumn): string {
  const f = col.field === null ? '' : q(col.field);
  switch (col.fold) {
    case 'count': return 'count(*)::integer';
    case 'counted': return `count(${f})::integer`;
    // numeric: exact, so the day's total does not depend on the order its check-ins were added in.
    case 'sum': return `coalesce(sum(${f}::numeric), 0)`;
    case 'min': return `min(${f})`;
    case 'max': return `max(${f})`;
    case 'latest': return `(array_agg(${f} order by "date" desc))[1]`;
  }
}

/** A column's fold of the stored row (kept) with a batch's row for the same device and day (excluded). */
function combine(col: HealthColumn): string {
  const kept = `${TABLE}.${q(col.name)}`, next = `excluded.${q(col.name)}`;
  switch (col.fold) {
    case 'count':
    case 'counted':
    case 'sum': return `${kept} + ${next}`;
    // least/greatest skip nulls: a day that never reported the field stays null.
    case 'min': return `least(${kept}, ${next})`;
    case 'max': return `greatest(${kept}, ${next})`;
    // The SET sees the row as it was, so this compares with the kept latest check-in.
    case 'latest': return `case when excluded.last_at > ${TABLE}.last_at then ${next} else ${kept} end`;
  }
}

/** health-day.ts histogramKey in SQL, for the reading `x` (double precision). */
export const histogramKeySql = (x: string): string =>
  `floor(least(${HISTOGRAM.limit}::double precision, greatest(-${HISTOGRAM.limit}::double precision, ${x})) * 2 + 0.5) / 2`;

/**
 * One statement: folds the check-ins `stored` yields (a SQL query whose rows carry the device_records columns
 * the folds read, each stored check-in once) into their device's day rows. interval_s is the device's learned
 * check-in interval (checkin_clock, domain/checkin-clock.ts) when the day's check-ins were written.
 */
export function healthUpsertSql(stored: string): string {
  const day = `("date" at time zone 'UTC')::date`;
  const names = HEALTH_COLUMNS.map((c) => q(c.name)).join(', ');
  const field = q(HISTOGRAM.field);
  // The histogram is made from each device-day's own keys (a lateral subquery over its row's array), not joined
  // from a grouping of the whole batch: the staging tables have no statistics, so the planner estimated one row
  // and joined such a grouping by a nested loop that sorted and grouped the whole batch again for each device-day,
  // quadratic in the batch (docs/decisions.md#review-of-the-held-clear-and-the-rollup).
  return `with stored as (${stored}),
    batch as (
      select "IMEINumber", ${day} as day, ${HEALTH_COLUMNS.map((c) => `${aggregate(c)} as ${q(c.name)}`).join(', ')},
             array_agg(${histogramKeySql(field)}) filter (where ${field} is not null) as keys
        from stored group by 1, 2)
    insert into ${TABLE} ("IMEINumber", day, ${names}, ${HISTOGRAM.values}, ${HISTOGRAM.counts}, interval_s)
    select b."IMEINumber", b.day, ${HEALTH_COLUMNS.map((c) => `b.${q(c.name)}`).join(', ')},
           coalesce(h.vals, '{}'), coalesce(h.counts, '{}'), k.expected_interval_s
      from batch b
      left join lateral (select array_agg(v order by v) as vals, array_agg(n order by v) as counts
                           from (select v, count(*)::integer as n from unnest(b.keys) v group by v) x) h on true
      left join checkin_clock k on k."IMEINumber" = b."IMEINumber"
     order by b."IMEINumber", b.day
    on conflict ("IMEINumber", day) do update set
      ${HEALTH_COLUMNS.map((c) => `${q(c.name)} = ${combine(c)}`).join(',\n      ')},
      (${HISTOGRAM.values}, ${HISTOGRAM.counts}) = (select m.vals, m.counts from fl_histogram_merge(${TABLE}.${HISTOGRAM.values}, ${TABLE}.${HISTOGRAM.counts}, excluded.${HISTOGRAM.values}, excluded.${HISTOGRAM.counts}) m),
      interval_s = coalesce(excluded.interval_s, ${TABLE}.interval_s)`;
}
