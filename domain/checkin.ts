// The shapes of one queue message (spec 2.1 to 2.4) after validation. Field names are the spec's, because
// they are also the stored column names and the API's field names (spec 4.2 "other fields keep the names in
// section 2"). Timestamps are ISO 8601 strings in UTC (`2026-11-20T14:00:00.000Z`), normalised once at
// validation, so every later stage can compare them as strings or parse them without guessing a zone.

/** device_data of spec 2.2, as the device reported it (nullable where a device may leave a field out). */
export interface DeviceData {
  IMEINumber: string;
  model: string | null;
  version: string | null;
  date: string;
  rssi: number | null;
  current_status: number | null;
  master: number | null;
  statusPacket: string | null;
  eventPacket: string | null;
  LEDDuration: number | null;
  LEDTimer: number | null;
  BatteryMCU: number | null;
  BatteryLED: number | null;
  State: number | null;
  FaultType: number | null;
  BatteryOrLine: number | null;
  FastMode: number | null;
  Calibrated: number | null;
  AverageCurrent1m: number | null;
  PrefaultCurrent: number | null;
  AverageCurrent1h: number | null;
  PeakCurrent24h: number | null;
  Tempfault_Reset_Hours: string | null;
  Permfault_Reset_Hours: number | null;
  SOTF: number | null;
  Brightness: string | null;
  Current_Reset: string | null;
  Block_Reset: number | null;
  Ongoing_fault: number;
  channel: number | null;
  gps_long: number | null;
  gps_lat: number | null;
  Program: string | null;
  ConnectTime: number | null;
  Temperature: number | null;
}

/** The numeric fields of DeviceData, in spec order (validation and storage walk this list). */
export const DEVICE_NUMBER_FIELDS = [
  'rssi', 'current_status', 'master', 'LEDDuration', 'LEDTimer', 'BatteryMCU', 'BatteryLED', 'State',
  'FaultType', 'BatteryOrLine', 'FastMode', 'Calibrated', 'AverageCurrent1m', 'PrefaultCurrent',
  'AverageCurrent1h', 'PeakCurrent24h', 'Permfault_Reset_Hours', 'SOTF', 'Block_Reset', 'channel', 'gps_long',
  'gps_lat', 'ConnectTime', 'Temperature',
] as const satisfies readonly (keyof DeviceData)[];

/** The string fields of DeviceData other than IMEINumber and date. */
export const DEVICE_STRING_FIELDS = [
  'model', 'version', 'statusPacket', 'eventPacket', 'Tempfault_Reset_Hours', 'Brightness', 'Current_Reset', 'Program',
] as const satisfies readonly (keyof DeviceData)[];

/**
 * One event of spec 2.3. Standard events carry the three currents, DM1 events the three phase strings;
 * the other group is null. Which table an event lands in is decided by the message's dm1_device flag.
 */
export interface DeviceEvent {
  EventID: number;
  EventTimestamp: string;
  EventType: string;
  PrefaultCurrent: number | null;
  FaultCurrent: number | null;
  RecoverCurrent: number | null;
  PhaseAEvent: string | null;
  PhaseBEvent: string | null;
  PhaseCEvent: string | null;
}

/** currents of spec 2.1 / 2.4. HourlyAverages has exactly 24 entries (spec 8). */
export interface Currents {
  PeakCurrent: number | null;
  PeakCurrentTimestamp: string | null;
  HourlyAverages: number[];
}

export type TestFaultPhase = 'fault' | 'clear';

/** The queue message's `test_fault` member (domain/test-fault.ts): which test fault sent it, and which of its two check-ins. */
export interface TestFaultMark {
  id: number;
  phase: TestFaultPhase;
}

export function isTestFaultMark(v: unknown): v is TestFaultMark {
  if (typeof v !== 'object' || v === null) return false;
  const { id, phase } = v as Record<string, unknown>;
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 && (phase === 'fault' || phase === 'clear');
}

/** A validated queue message (spec 2.1). */
export interface CheckIn {
  device_data: DeviceData;
  events: DeviceEvent[];
  currents: Currents | null;
  dm1_device: boolean;
  /** Set only on the synthetic check-ins of a test fault (docs/decisions.md#test-faults); absent or null otherwise. */
  test_fault?: TestFaultMark | null;
}

/** Device information (spec 2.5) as the pipeline needs it: a snapshot taken at check-in time. */
export interface DeviceSnapshot {
  DeviceID: number;
  IMEINumber: string;
  Real_Name: string | null;
  Lat: number | null;
  Long: number | null;
  OrganizationID: string;
  PowerLineID: string | null;
  dnp3QueueAddress: string | null;
}

export const HOURLY_AVERAGE_COUNT = 24;
