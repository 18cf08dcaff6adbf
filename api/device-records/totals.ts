// `total` of the org-wide lists without filters (issue 4: "total computed efficiently"): the sum of the
// per-device counters that migration 0004's triggers keep, over the devices in reach. Thousands of
// counter rows instead of millions of records. Any filter or day range counts the rows themselves. A device
// moved between organisations has its history since the move counted instead (its counters hold the
// earlier organisation's records too; docs/decisions.md#reach-applied-once): rare, and one index range each.
import type { Caller } from '../auth/caller.js';
import type { ListQuery } from './list-params.js';
import type { DeviceCounts, DeviceReach } from './reach.js';
import { FAULT_EVENT_TYPES, sqlTypeList } from '../../domain/fault-events.js';
import { reachCondition } from './reach.js';
import { SqlParams } from './sql.js';

export type CountedColumn = 'records' | 'critical_events';

/** True when the counters answer `q` exactly: no filter and no day range. */
export function countersAnswer(q: ListQuery): boolean {
  return q.filters.length === 0 && q.from === null && q.to === null;
}

const TYPES = sqlTypeList(FAULT_EVENT_TYPES);
/** A moved device's rows from its move on, per counted column (the sources the triggers of migration 0004 count). */
const SINCE_MOVE: Record<CountedColumn, string> = {
  records: `(select count(*) from device_records x where x."IMEINumber" = d."IMEINumber" and x."date" >= d."OrganizationSince")`,
  critical_events: `((select count(*) from event_records x where x."IMEINumber" = d."IMEINumber" and x."EventType" in ${TYPES} and x."PacketTimestamp" >= d."OrganizationSince")
    + (select count(*) from dm1_event_records x where x."IMEINumber" = d."IMEINumber" and x."EventType" in ${TYPES} and x."PacketTimestamp" >= d."OrganizationSince")
    + (select count(*) from model_change_alerts x where x."IMEINumber" = d."IMEINumber" and x."at" >= d."OrganizationSince"))`,
};

/** The count statement (for pageJson) summing `column` over the devices in the caller's reach. */
export function counterTotal(column: CountedColumn, caller: Caller): { sql: string; values: unknown[] } {
  const p = new SqlParams();
  const sql = `select coalesce(sum(case when d."OrganizationSince" = '-infinity' then c.${column} else ${SINCE_MOVE[column]} end), 0) as n
                 from device_information d join device_read_counts c on c."IMEINumber" = d."IMEINumber"
                where ${reachCondition(caller, p)}`;
  return { sql, values: p.values };
}

/**
 * One device's total of a list (its data-log, events or load history) from its counter, when the counter answers
 * it exactly: no filter or day range, and its whole history readable (never moved between organisations).
 * Otherwise undefined: the rows are counted. Counting a device's rows opened every partition per request
 * (docs/decisions.md#newest-first-windows, #a-devices-lists-total-from-its-counters).
 */
export function deviceTotal(q: ListQuery, reach: DeviceReach, counted: keyof DeviceCounts): number | undefined {
  return countersAnswer(q) && reach.since === null ? reach.counts[counted] : undefined;
}
