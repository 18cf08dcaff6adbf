// Migration 0051's critical_event_months against the events the tables hold, counted again here in SQL of its
// own: what the triggers, the backfill and retention keep must be what a recount finds.
import type pg from 'pg';
import * as assert from 'uvu/assert';

/** The fault event types as an SQL list, spelled here apart from domain/fault-events.ts so the recounts are independent. */
export const FAULT_TYPES = `('PFault', 'TFault', 'SOTF', 'Fault Like', 'Fault <50', 'Overcurrent', 'FAULT_INITIAL')`;
const month = (column: string) => `date_trunc('month', "${column}" at time zone 'UTC')::date`;

/** Fails `what` unless every (source, month, IMEI) with events is kept with its count, and nothing else is. */
export async function assertMonthsCounted(pool: pg.Pool, what: string): Promise<void> {
  const { rows } = await pool.query<{ kept: string; recounted: string; n: number }>(`
    with recounted as (
      select 'event' as source, ${month('ReportedEventTimestamp')} as month, "IMEINumber", count(*) as events from event_records where "EventType" in ${FAULT_TYPES} group by 2, 3
      union all select 'dm1_event', ${month('ReportedEventTimestamp')}, "IMEINumber", count(*) from dm1_event_records where "EventType" in ${FAULT_TYPES} group by 2, 3
      union all select 'model_change', ${month('at')}, "IMEINumber", count(*) from model_change_alerts group by 2, 3)
    select (select md5(string_agg(row(source, month, "IMEINumber", events)::text, ',' order by source, month, "IMEINumber")) from critical_event_months where events > 0) as kept,
           (select md5(string_agg(row(source, month, "IMEINumber", events)::text, ',' order by source, month, "IMEINumber")) from recounted) as recounted,
           (select count(*)::int from recounted) as n`);
  assert.ok(rows[0]!.n > 0, `${what}: events to count`);
  assert.is(rows[0]!.kept, rows[0]!.recounted, `${what}: critical_event_months holds what the tables hold`);
}
