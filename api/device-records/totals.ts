// `total` of the org-wide lists without filters (issue 4: "total computed efficiently"): the sum of the
// per-device counters that migration 0004's triggers keep, over the devices in reach. Thousands of
// counter rows instead of millions of records. Any filter or day range counts the rows themselves.
import type { Caller } from '../auth/caller.js';
import type { ListQuery } from './list-params.js';
import { reachCondition } from './reach.js';
import { SqlParams } from './sql.js';

export type CountedColumn = 'records' | 'critical_events';

/** True when the counters answer `q` exactly: no filter and no day range. */
export function countersAnswer(q: ListQuery): boolean {
  return q.filters.length === 0 && q.from === null && q.to === null;
}

/** The count statement (for pageOf) summing `column` over the devices in the caller's reach. */
export function counterTotal(column: CountedColumn, caller: Caller): { sql: string; values: unknown[] } {
  const p = new SqlParams();
  const sql = `select coalesce(sum(c.${column}), 0) as n
                 from device_information d join device_read_counts c on c."IMEINumber" = d."IMEINumber"
                where ${reachCondition(caller, p)}`;
  return { sql, values: p.values };
}
