// Stored rows -> response objects (spec 4.2 "Response formatting"): timestamps in the caller's zone as
// `YYYY-MMM-DD hh:mm A`, fault codes as strings, State / FaultType through the configured lists, events
// through spec 3.4. All of it is domain/; this file only knows which column is which. The mask of spec 3.5
// comes after, on the whole answer (routes.ts).
import type { CodeStrings } from '../../domain/code-strings.js';
import { codeText } from '../../domain/code-strings.js';
import { formatDisplayTimeOrNull, formatDisplayTimeSeconds } from '../../domain/display-time.js';
import {
  presentedFaultCurrent, presentedPostEventRef, presentedPrefaultCurrent, presentedRecoverCurrent, presentedThreshold, presentEvent,
} from '../../domain/event-presentation.js';
import { ongoingFaultText } from '../../domain/ongoing-fault-codes.js';
import type { Caller } from '../auth/caller.js';
import { numberText, packedSelect, type PackedSelect } from './packed-numbers.js';
import { plain, type CellValue, type Field } from './row-json.js';

export interface PresentContext {
  timeZone: string;
  codeStrings: CodeStrings;
  /** `hh:mm:ss A` instead of spec 4.2's `hh:mm A`: asked for with the time-precision header (routes.ts). */
  seconds: boolean;
}

export function presentContext(caller: Caller & { displaySeconds?: boolean }, codeStrings: CodeStrings): PresentContext {
  return { timeZone: caller.timeZone, codeStrings, seconds: caller.displaySeconds === true };
}

type Row = Record<string, unknown>;

const time = (v: unknown, ctx: PresentContext) => (ctx.seconds
  ? (v === null || v === undefined ? null : formatDisplayTimeSeconds((v as Date).getTime(), ctx.timeZone))
  : formatDisplayTimeOrNull((v as Date | null) ?? null, ctx.timeZone));
const fault = (v: unknown) => (v === null || v === undefined ? null : ongoingFaultText(v as number));
const code = (v: unknown, map: ReadonlyMap<number, string>) => codeText(map, (v as number | null) ?? null);

/** Device-record columns of spec 2.2 in API order (the audit copy ReportedOngoingFault and ingest ids stay internal); TestFaultID is set on a test fault's check-ins only. */
export const RECORD_COLUMNS = [
  'RecordID', 'IMEINumber', 'model', 'version', 'date', 'rssi', 'current_status', 'master', 'statusPacket', 'eventPacket',
  'LEDDuration', 'LEDTimer', 'BatteryMCU', 'BatteryLED', 'State', 'FaultType', 'BatteryOrLine', 'FastMode', 'Calibrated',
  'AverageCurrent1m', 'PrefaultCurrent', 'AverageCurrent1h', 'PeakCurrent24h', 'Tempfault_Reset_Hours', 'Permfault_Reset_Hours',
  'SOTF', 'Brightness', 'Current_Reset', 'Block_Reset', 'Ongoing_fault', 'channel', 'gps_long', 'gps_lat', 'Program',
  'ConnectTime', 'Temperature', 'ActualOngoingFault', 'CurrentName', 'CurrentLat', 'CurrentLong', 'CreatedDate', 'TestFaultID',
] as const;

/** `r."RecordID", r."IMEINumber", ...` for a select list. */
export const recordSelectList = (alias: string, prefix = '') =>
  RECORD_COLUMNS.map((c) => `${alias}."${c}" as "${prefix}${c}"`).join(', ');

/**
 * The double precision columns of RECORD_COLUMNS shown as they are stored (State and FaultType, double precision too, are
 * shown through the code lists): a page reads them packed (packed-numbers.ts; their types: test/integration/api/packed-numbers.test.ts).
 */
export const RECORD_NUMBER_COLUMNS: readonly string[] = [
  'rssi', 'current_status', 'master', 'LEDDuration', 'LEDTimer', 'BatteryMCU', 'BatteryLED', 'BatteryOrLine', 'FastMode',
  'Calibrated', 'AverageCurrent1m', 'PrefaultCurrent', 'AverageCurrent1h', 'PeakCurrent24h', 'Permfault_Reset_Hours', 'SOTF', 'Block_Reset',
  'channel', 'gps_long', 'gps_lat', 'ConnectTime', 'Temperature', 'CurrentLat', 'CurrentLong',
];

/** RECORD_COLUMNS of `alias` for a page read as arrays, RECORD_NUMBER_COLUMNS packed (packed-numbers.ts): write its rows with packedRecordFields. */
export const packedRecordSelect = (alias: string): PackedSelect =>
  packedSelect(RECORD_COLUMNS.map((c) => ({ sql: `${alias}."${c}"`, float8: RECORD_NUMBER_COLUMNS.includes(c) })));

/** One device record (spec 2.2) as the API shows it. */
export function presentRecord(row: Row, ctx: PresentContext, prefix = ''): Row {
  const out: Row = {};
  for (const c of RECORD_COLUMNS) out[c] = row[prefix + c] ?? null;
  out.date = time(out.date, ctx);
  out.CreatedDate = time(out.CreatedDate, ctx);
  out.Ongoing_fault = fault(out.Ongoing_fault);
  out.ActualOngoingFault = fault(out.ActualOngoingFault);
  out.State = code(out.State, ctx.codeStrings.State);
  out.FaultType = code(out.FaultType, ctx.codeStrings.FaultType);
  return out;
}

/** The fields of presentRecord, in its order, read from an array row by `at` (row-json.ts). */
export function recordFields(at: (name: string) => number): (readonly [string, CellValue<PresentContext>])[] {
  const cell = (c: (typeof RECORD_COLUMNS)[number]): CellValue<PresentContext> => {
    const i = at(c);
    switch (c) {
      case 'date': case 'CreatedDate': return (row, ctx) => time(row[i], ctx);
      case 'Ongoing_fault': case 'ActualOngoingFault': return (row) => fault(row[i]);
      case 'State': return (row, ctx) => code(row[i], ctx.codeStrings.State);
      case 'FaultType': return (row, ctx) => code(row[i], ctx.codeStrings.FaultType);
      default: return plain(i);
    }
  };
  return RECORD_COLUMNS.map((c) => [c, cell(c)] as const);
}

/** recordFields of a row read with packedRecordSelect: RECORD_NUMBER_COLUMNS written as Postgres sent them. */
export function packedRecordFields(at: (name: string) => number): Field<PresentContext>[] {
  return recordFields(at).map(([c, cell]) => [c, RECORD_NUMBER_COLUMNS.includes(c) ? numberText(at(c)) : cell] as const);
}

/** Event columns shared by both event tables (spec 2.3), with the table each came from. */
export const EVENT_COLUMNS = [
  'EventTable', 'Event_Record_ID', 'EventID', 'EventTimestamp', 'EventType', 'PrefaultCurrent', 'FaultCurrent', 'RecoverCurrent',
  'PhaseAEvent', 'PhaseBEvent', 'PhaseCEvent', 'PacketTimestamp', 'IMEINumber', 'DeviceRecordID',
] as const;

/** One event (either table) with spec 3.4 applied and its timestamps in the caller's zone (the reference eventFields' writers are held to: test/api/row-json.test.ts). */
export function presentEventRow(row: Row, ctx: PresentContext): Row {
  const base: Row = {};
  for (const c of EVENT_COLUMNS) base[c] = row[c] ?? null;
  const presented = presentEvent({
    ...base,
    EventType: String(base.EventType),
    PrefaultCurrent: (base.PrefaultCurrent as number | null),
    FaultCurrent: (base.FaultCurrent as number | null),
    RecoverCurrent: (base.RecoverCurrent as number | null),
  });
  return { ...presented, EventTimestamp: time(base.EventTimestamp, ctx), PacketTimestamp: time(base.PacketTimestamp, ctx) };
}

/**
 * The fields of presentEventRow, in its order (spec 3.4 field by field), read from an array row by `at`;
 * `omit`: fields left out (and not read).
 */
export function eventFields(at: (name: string) => number, omit: readonly string[] = []): (readonly [string, CellValue<PresentContext>])[] {
  const [t, p, f, r] = (['EventType', 'PrefaultCurrent', 'FaultCurrent', 'RecoverCurrent'] as const).map(at) as [number, number, number, number];
  const type = (row: readonly unknown[]) => String(row[t] ?? null);
  const num = (row: readonly unknown[], i: number) => (row[i] as number | null | undefined) ?? null;
  const cell = (c: string): CellValue<PresentContext> => {
    switch (c) {
      case 'EventTimestamp': case 'PacketTimestamp': { const i = at(c); return (row, ctx) => time(row[i], ctx); }
      case 'EventType': return type;
      case 'PrefaultCurrent': return (row) => presentedPrefaultCurrent(type(row), num(row, p), num(row, f));
      case 'FaultCurrent': return (row) => presentedFaultCurrent(type(row), num(row, f));
      case 'RecoverCurrent': return (row) => presentedRecoverCurrent(type(row), num(row, r));
      case 'PermanentFaultResetCurrentThreshold': return (row) => presentedThreshold(type(row), num(row, p), num(row, f));
      case 'PostEventRef': return (row) => presentedPostEventRef(type(row));
      default: return plain(at(c));
    }
  };
  return [...EVENT_COLUMNS, 'PermanentFaultResetCurrentThreshold', 'PostEventRef'].filter((c) => !omit.includes(c)).map((c) => [c, cell(c)] as const);
}

/** The device_information columns every device view shares (spec 2.5 plus the import's fields). */
export const DEVICE_COLUMNS = [
  'DeviceID', 'IMEINumber', 'Real_Name', 'Lat', 'Long', 'LastCheckInTime', 'OrganizationID', 'PowerLineID', 'PowerLineName', 'serialNumber',
] as const;

export const deviceSelectList = (d = 'd', pl = 'pl') =>
  DEVICE_COLUMNS.map((c) => (c === 'PowerLineName' ? `${pl}.name as "PowerLineName"` : `${d}."${c}"`)).join(', ');

export function presentDevice(row: Row, ctx: PresentContext): Row {
  const out: Row = {};
  for (const c of DEVICE_COLUMNS) out[c] = row[c] ?? null;
  out.LastCheckInTime = time(out.LastCheckInTime, ctx);
  return out;
}

/** The fields of presentDevice, in its order, read from an array row by `at` (row-json.ts). */
export function deviceFields(at: (name: string) => number): (readonly [string, CellValue<PresentContext>])[] {
  return DEVICE_COLUMNS.map((c) => {
    const i = at(c);
    return [c, c === 'LastCheckInTime' ? (row: readonly unknown[], ctx: PresentContext) => time(row[i], ctx) : plain(i)] as const;
  });
}

/** The latest-status fields that device lists show beside device information. */
export const STATUS_COLUMNS = ['date', 'model', 'Ongoing_fault', 'ActualOngoingFault', 'BatteryOrLine', 'BatteryMCU', 'AverageCurrent1m', 'Temperature', 'rssi'] as const;

/** The latest status as an object (the reference statusFields' writers are held to: test/api/row-json.test.ts). */
export function presentStatus(row: Row, ctx: PresentContext): Row {
  const out: Row = {};
  for (const c of STATUS_COLUMNS) out[c] = row[c] ?? null;
  out.date = time(out.date, ctx);
  out.Ongoing_fault = fault(out.Ongoing_fault);
  out.ActualOngoingFault = fault(out.ActualOngoingFault);
  return out;
}

/** The fields of presentStatus, in its order, read from an array row by `at` (row-json.ts). */
export function statusFields(at: (name: string) => number): (readonly [string, CellValue<PresentContext>])[] {
  return STATUS_COLUMNS.map((c) => {
    const i = at(c);
    const cell: CellValue<PresentContext> = c === 'date' ? (row, ctx) => time(row[i], ctx) : c === 'Ongoing_fault' || c === 'ActualOngoingFault' ? (row) => fault(row[i]) : plain(i);
    return [c, cell] as const;
  });
}

export { time as displayTime, fault as displayFault };
