// device_read_counts (migrations 0004 and 0053) against the rows the tables hold, counted again here in SQL of its
// own: what the triggers, the backfills and retention keep must be what a recount finds, device by device.
import type pg from 'pg';
import * as assert from 'uvu/assert';
import { FAULT_TYPES } from './critical-months.js';

/** Fails `what` unless every device's records, events, currents and critical_events are what its rows count. */
export async function assertDevicesCounted(pool: pg.Pool, what: string): Promise<void> {
  const { rows } = await pool.query<{ kept: string; recounted: string; n: number }>(`
    with rows_of as (
      select "IMEINumber", 1 as records, 0 as events, 0 as currents, 0 as critical from device_records
      union all select "IMEINumber", 0, 1, 0, ("EventType" in ${FAULT_TYPES})::int from event_records
      union all select "IMEINumber", 0, 1, 0, ("EventType" in ${FAULT_TYPES})::int from dm1_event_records
      union all select "IMEINumber", 0, 0, 1, 0 from device_currents
      union all select "IMEINumber", 0, 0, 0, 1 from model_change_alerts),
    recounted as (select "IMEINumber", sum(records) as records, sum(events) as events, sum(currents) as currents, sum(critical) as critical from rows_of group by 1)
    select (select md5(string_agg(row("IMEINumber", records, events, currents, critical_events)::text, ',' order by "IMEINumber")) from device_read_counts
             where (records, events, currents, critical_events) <> (0, 0, 0, 0)) as kept,
           (select md5(string_agg(row("IMEINumber", records, events, currents, critical)::text, ',' order by "IMEINumber")) from recounted) as recounted,
           (select count(*)::int from recounted where events > 0 and currents > 0) as n`);
  assert.ok(rows[0]!.n > 0, `${what}: devices with events and currents to count`);
  assert.is(rows[0]!.kept, rows[0]!.recounted, `${what}: device_read_counts holds what the tables hold`);
}
