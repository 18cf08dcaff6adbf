// /device-records/device-summary: counts over the reachable devices (docs/decisions.md): by latest fault state
// (routes.ts masks them per spec 3.5, so a masked organisation sees only None / Fault buckets), online / offline
// (the learned check-in clock, OFFLINE_AFTER_HOURS its ceiling), never checked in, low battery (latest ActualOngoingFault 402).
import { ONGOING_FAULT } from '../../domain/ongoing-fault-codes.js';
import { text, type FieldTable } from './fields.js';
import { CLOCK_JOIN, onlineSql, type ReadEndpoint } from './endpoint.js';
import { displayFault } from './present.js';
import { deviceLatestJoin } from './latest-record.js';
import { reachCondition } from './reach.js';
import { JsonText, jsonValue } from './row-json.js';
import { filterConditions, SqlParams, whereClause } from './sql.js';

const FILTERABLE: FieldTable = { PowerLineID: text('d."PowerLineID"'), IMEINumber: text('d."IMEINumber"'), Real_Name: text('d."Real_Name"') };

export const deviceSummary: ReadEndpoint = {
  path: '/device-summary',
  summary: 'Device summary statistics',
  description: 'Counts over the devices in reach: total, online / offline (no check-in within two learned check-in intervals, at most OFFLINE_AFTER_HOURS), never checked in, low battery (latest ActualOngoingFault Low Battery), and devices by latest ActualOngoingFault (masked per spec 3.5).',
  params: { accepts: ['filterBy'], sortable: {}, filterable: FILTERABLE },
  schema: 'DeviceSummary', shape: 'object',
  // Counts over every device in reach (~8 ms of Postgres at 10,000 devices) that a dashboard polls: one answer a
  // second per caller, with an ETag (routes.ts), like map-data and the fleet cards.
  fleetWide: true,
  async run(deps, caller, q) {
    const { pool, codeStrings, offlineAfterHours } = deps;
    const p = new SqlParams();
    // Online until the device's learned deadline (domain/checkin-clock.ts): the rule the DNP3 point and the
    // communication-lost alarm use; OFFLINE_AFTER_HOURS is its ceiling.
    const isOnline = onlineSql(deps, p);
    const lowBattery = p.add(ONGOING_FAULT.LOW_BATTERY);
    const conditions = [reachCondition(caller, p), ...filterConditions(q.filters, FILTERABLE, { codeStrings }, p)];
    // One row per latest code: [code, devices, online, never checked in, low battery], read as arrays.
    const { rows } = await pool.query<[number | null, number, number, number, number]>({
      text: `
      select r."ActualOngoingFault" as code, count(*)::int as n,
             count(*) filter (where ${isOnline})::int as online,
             count(*) filter (where d."LastCheckInTime" is null)::int as never,
             count(*) filter (where r."ActualOngoingFault" = ${lowBattery}::int)::int as low
        from device_information d ${deviceLatestJoin()}
        ${CLOCK_JOIN}
        ${whereClause(conditions)}
       group by 1`,
      values: p.values,
      rowMode: 'array',
    });
    return new JsonText(summaryText(rows, offlineAfterHours));
  },
};

/** The summary's JSON text from its rows, keys in the documented order (schema DeviceSummary). */
export function summaryText(rows: readonly (readonly [number | null, number, number, number, number])[], offlineAfterHours: number): string {
  const byFault = new Map<string, number>();
  const sums = [0, 0, 0, 0];
  for (const row of rows) {
    for (let i = 0; i < 4; i++) sums[i]! += row[i + 1] as number;
    if (row[0] === null) continue;
    const key = displayFault(row[0])!;
    byFault.set(key, (byFault.get(key) ?? 0) + row[1]);
  }
  const [total, online, never, low] = sums as [number, number, number, number];
  const buckets = [...byFault].sort(([a], [b]) => a.localeCompare(b)).map(([fault, n]) => `{"ActualOngoingFault":${jsonValue(fault)},"count":${n}}`);
  return `{"totalDevices":${total},"online":${online},"offline":${total - online},"neverCheckedIn":${never},"lowBattery":${low},`
    + `"offlineAfterHours":${jsonValue(offlineAfterHours)},"byActualOngoingFault":[${buckets.join(',')}]}`;
}
