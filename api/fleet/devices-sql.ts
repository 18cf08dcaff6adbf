// The device list of the fleet view (GET /api/fleet/devices and its CSV): one row per device in reach with its
// last assessment, silence label and drifting settings, sortable by each card's measure and filterable.
// The SQL text comes from these tables only; values are parameters (api/device-records/sql.ts).
import { assessmentReadableSql } from '../../fleet-health/read-scope.js';
import type { Caller } from '../auth/caller.js';
import { num, text, type FieldTable } from '../device-records/fields.js';
import type { ListQuery } from '../device-records/list-params.js';
import { reachCondition } from '../device-records/reach.js';
import type { SqlParams} from '../device-records/sql.js';
import { filterConditions, orderBy, whereClause } from '../device-records/sql.js';
import type { CodeStrings } from '../../domain/code-strings.js';

// Online rate as the summary counts it (fleet-health/summary.ts): received up to expected, over expected.
const rate = (days: number) => `(least(h.received_${days}d, h.expected_${days}d)::double precision / nullif(h.expected_${days}d, 0))`;

export const SORTABLE: FieldTable = {
  IMEINumber: text('d."IMEINumber"'), onlineRate7d: num(rate(7)), onlineRate30d: num(rate(30)), batteryDaysLeft: num('h.battery_days_left'),
  rssiMedian7d: num('h.rssi_median_7d'), rssiSlope30d: num('h.rssi_slope_30d'), firmware: text('h.firmware'), silenceLabel: text('s.label'),
  LastCheckInTime: num('d."LastCheckInTime"'),
};
export const FILTERABLE: FieldTable = {
  silenceLabel: text('s.label'), signal: text('h.signal'), batteryStatus: text('h.battery_status'), model: text('h.model'),
  firmware: text('h.firmware'), PowerLineID: text('d."PowerLineID"'), IMEINumber: text('d."IMEINumber"'),
};
export const DEFAULT_SORT = [{ field: 'IMEINumber', order: 'asc' }] as const;
const TIE_BREAKER = ['d."DeviceID"'];

export const SELECT_LIST = `d."IMEINumber", d."Real_Name", d."PowerLineID", d."LastCheckInTime", h.model, h.firmware, h.assessed_at,
  h.received_7d, h.expected_7d, ${rate(7)} as online_rate_7d, h.received_30d, h.expected_30d, ${rate(30)} as online_rate_30d,
  h.rssi_median_7d, h.rssi_slope_30d, h.signal, h.battery_status, h.battery_days_left, to_char(h.battery_end_day, 'YYYY-MM-DD') as battery_end_day,
  s.label as silence_label, s.silent_since,
  array(select x.setting from device_drift x where x."IMEINumber" = d."IMEINumber" and ${assessmentReadableSql('x')} order by 1) as drift_settings`;

/** `from ... where ...` of the list for `caller` and `q`'s filters, and its ORDER BY. */
export function deviceListSql(caller: Caller, q: ListQuery, codeStrings: CodeStrings, p: SqlParams): { fromWhere: string; order: string } {
  const conditions = [reachCondition(caller, p), ...filterConditions(q.filters, FILTERABLE, { codeStrings }, p)];
  const fromWhere = `from device_information d
    left join device_health h on h."IMEINumber" = d."IMEINumber" and ${assessmentReadableSql('h')}
    left join device_silence s on s."IMEINumber" = d."IMEINumber" and ${assessmentReadableSql('s')}
    ${whereClause(conditions)}`;
  return { fromWhere, order: orderBy(q.sort, SORTABLE, DEFAULT_SORT, TIE_BREAKER) };
}

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : null);
const numOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/** One row as the list and the CSV give it (the CSV's columns are these keys, in this order). */
export function presentFleetDevice(r: Record<string, unknown>) {
  return {
    IMEINumber: r.IMEINumber as string, Real_Name: (r.Real_Name as string | null) ?? null, PowerLineID: (r.PowerLineID as string | null) ?? null,
    model: (r.model as string | null) ?? null, firmware: (r.firmware as string | null) ?? null, LastCheckInTime: iso(r.LastCheckInTime),
    onlineRate7d: numOrNull(r.online_rate_7d), received7d: numOrNull(r.received_7d), expected7d: numOrNull(r.expected_7d),
    onlineRate30d: numOrNull(r.online_rate_30d), received30d: numOrNull(r.received_30d), expected30d: numOrNull(r.expected_30d),
    rssiMedian7d: numOrNull(r.rssi_median_7d), rssiSlope30d: numOrNull(r.rssi_slope_30d), signal: (r.signal as string | null) ?? null,
    batteryStatus: (r.battery_status as string | null) ?? null, batteryDaysLeft: numOrNull(r.battery_days_left), batteryEndDay: (r.battery_end_day as string | null) ?? null,
    silenceLabel: (r.silence_label as string | null) ?? null, silentSince: iso(r.silent_since),
    driftSettings: r.drift_settings as string[], assessedAt: iso(r.assessed_at),
  };
}
export type FleetDevice = ReturnType<typeof presentFleetDevice>;
