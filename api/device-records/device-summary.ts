// /device-records/device-summary: counts over the reachable devices (docs/decisions.md): by latest fault state
// (routes.ts masks them per spec 3.5, so a masked organisation sees only None / Fault buckets), online / offline
// (the learned check-in clock, OFFLINE_AFTER_HOURS its ceiling), never checked in, low battery (latest ActualOngoingFault 402).
import { ONGOING_FAULT } from '../../domain/ongoing-fault-codes.js';
import { text, type FieldTable } from './fields.js';
import { CLOCK_JOIN, onlineSql, type ReadEndpoint } from './endpoint.js';
import { displayFault } from './present.js';
import { deviceLatestJoin } from './latest-record.js';
import { reachCondition } from './reach.js';
import { filterConditions, SqlParams, whereClause } from './sql.js';

const FILTERABLE: FieldTable = { PowerLineID: text('d."PowerLineID"'), IMEINumber: text('d."IMEINumber"'), Real_Name: text('d."Real_Name"') };

export const deviceSummary: ReadEndpoint = {
  path: '/device-summary',
  summary: 'Device summary statistics',
  description: 'Counts over the devices in reach: total, online / offline (no check-in within two learned check-in intervals, at most OFFLINE_AFTER_HOURS), never checked in, low battery (latest ActualOngoingFault Low Battery), and devices by latest ActualOngoingFault (masked per spec 3.5).',
  params: { accepts: ['filterBy'], sortable: {}, filterable: FILTERABLE },
  schema: 'DeviceSummary', shape: 'object',
  async run(deps, caller, q) {
    const { pool, codeStrings, offlineAfterHours } = deps;
    const p = new SqlParams();
    // Online until the device's learned deadline (domain/checkin-clock.ts): the rule the DNP3 point and the
    // communication-lost alarm use; OFFLINE_AFTER_HOURS is its ceiling.
    const isOnline = onlineSql(deps, p);
    const lowBattery = p.add(ONGOING_FAULT.LOW_BATTERY);
    const conditions = [reachCondition(caller, p), ...filterConditions(q.filters, FILTERABLE, { codeStrings }, p)];
    const { rows } = await pool.query<{ code: number | null; n: number; online: number; never: number; low: number }>(`
      select r."ActualOngoingFault" as code, count(*)::int as n,
             count(*) filter (where ${isOnline})::int as online,
             count(*) filter (where d."LastCheckInTime" is null)::int as never,
             count(*) filter (where r."ActualOngoingFault" = ${lowBattery}::int)::int as low
        from device_information d ${deviceLatestJoin()}
        ${CLOCK_JOIN}
        ${whereClause(conditions)}
       group by 1`, p.values);
    const byFault = new Map<string, number>();
    for (const row of rows) {
      if (row.code === null) continue;
      const key = displayFault(row.code)!;
      byFault.set(key, (byFault.get(key) ?? 0) + row.n);
    }
    const sum = (f: (r: (typeof rows)[number]) => number) => rows.reduce((s, r) => s + f(r), 0);
    const total = sum((r) => r.n);
    const online = sum((r) => r.online);
    return {
      totalDevices: total,
      online,
      offline: total - online,
      neverCheckedIn: sum((r) => r.never),
      lowBattery: sum((r) => r.low),
      offlineAfterHours,
      byActualOngoingFault: [...byFault].sort(([a], [b]) => a.localeCompare(b)).map(([ActualOngoingFault, count]) => ({ ActualOngoingFault, count })),
    };
  },
};
