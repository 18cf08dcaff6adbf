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
import type { Cell } from '../../plumbing/csv.js';
import { rowWriter } from '../device-records/row-json.js';

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
const asIs = (v: unknown) => v ?? null;

/**
 * Each field of a listed device in API order (also the CSV's columns): its name, the SQL that selects it (named
 * as the column is known in SQL), its value from that column, and its CSV cell when that differs (the drifting
 * settings joined with "|").
 */
const FIELDS: readonly (readonly [string, string, (v: unknown) => unknown, ((v: unknown) => Cell)?])[] = [
  ['IMEINumber', 'd."IMEINumber"', asIs], ['Real_Name', 'd."Real_Name"', asIs], ['PowerLineID', 'd."PowerLineID"', asIs],
  ['model', 'h.model', asIs], ['firmware', 'h.firmware', asIs], ['LastCheckInTime', 'd."LastCheckInTime"', iso],
  ['onlineRate7d', `${rate(7)} as online_rate_7d`, numOrNull], ['received7d', 'h.received_7d', numOrNull], ['expected7d', 'h.expected_7d', numOrNull],
  ['onlineRate30d', `${rate(30)} as online_rate_30d`, numOrNull], ['received30d', 'h.received_30d', numOrNull], ['expected30d', 'h.expected_30d', numOrNull],
  ['rssiMedian7d', 'h.rssi_median_7d', numOrNull], ['rssiSlope30d', 'h.rssi_slope_30d', numOrNull], ['signal', 'h.signal', asIs],
  ['batteryStatus', 'h.battery_status', asIs], ['batteryDaysLeft', 'h.battery_days_left', numOrNull],
  ['batteryEndDay', `to_char(h.battery_end_day, 'YYYY-MM-DD') as battery_end_day`, asIs],
  ['silenceLabel', 's.label as silence_label', asIs], ['silentSince', 's.silent_since', iso],
  ['driftSettings', `array(select x.setting from device_drift x where x."IMEINumber" = d."IMEINumber" and ${assessmentReadableSql('x')} order by 1) as drift_settings`, asIs,
    (v) => (v as string[]).join('|')],
  ['assessedAt', 'h.assessed_at', iso],
];

/** The columns each row is read with (as an array, in FIELDS' order). */
export const SELECT_LIST = FIELDS.map(([, sql]) => sql).join(', ');

/** One row written as the list's JSON item (row-json.ts). */
export const writeFleetDevice = rowWriter<unknown>(FIELDS.map(([name, , value], i) => [name, (row: readonly unknown[]) => value(row[i])] as const));

/** The CSV's header row: the list's field names in order. */
export const CSV_HEADER: Cell[] = FIELDS.map(([name]) => name);

/** One row as the CSV's cells. */
export const csvCells = (row: readonly unknown[]): Cell[] => FIELDS.map(([, , value, csv], i) => (csv ?? value)(row[i]) as Cell);
