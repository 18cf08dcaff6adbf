// DNP3 JSON output (spec 6.1 step 11, 6.2; docs/decisions.md#dnp3-json-output): one JSON object per stored
// check-in, sent to the device's dnp3QueueAddress. BatteryOrLine is written as Line or Battery (spec 2.2).
import type { DeviceSnapshot } from './checkin.js';
import type { DeviceRecord } from './device-record.js';
import type { EventRecord } from './event-record.js';
import { batteryOrLineText, ongoingFaultText } from './ongoing-fault-codes.js';

export interface Dnp3StandardEvent {
  EventID: number;
  EventTimestamp: string;
  EventType: string;
  PrefaultCurrent: number | null;
  FaultCurrent: number | null;
  RecoverCurrent: number | null;
}

export interface Dnp3Dm1Event {
  EventID: number;
  EventTimestamp: string;
  EventType: string;
  PhaseAEvent: string | null;
  PhaseBEvent: string | null;
  PhaseCEvent: string | null;
}

export interface Dnp3Output {
  IMEINumber: string;
  Real_Name: string | null;
  /** ISO 8601 UTC, milliseconds. */
  date: string;
  ActualOngoingFault: number;
  ActualOngoingFaultText: string;
  /** `Line` (0), `Battery` (1), `Unknown (<code>)`, or null when the device did not say. */
  BatteryOrLine: string | null;
  AverageCurrent1m: number | null;
  PrefaultCurrent: number | null;
  AverageCurrent1h: number | null;
  PeakCurrent24h: number | null;
  BatteryMCU: number | null;
  BatteryLED: number | null;
  Temperature: number | null;
  rssi: number | null;
  /** The events stored with this check-in, with their final timestamps, in the fields of their table. */
  events: (Dnp3StandardEvent | Dnp3Dm1Event)[];
}

/**
 * The payload for one stored check-in. Real_Name is the name at check-in time (the record's CurrentName),
 * so a message rebuilt later says what the master saw then.
 */
export function buildDnp3Output(record: DeviceRecord, events: readonly EventRecord[]): Dnp3Output {
  return {
    IMEINumber: record.IMEINumber,
    Real_Name: record.CurrentName,
    date: record.date,
    ActualOngoingFault: record.ActualOngoingFault,
    ActualOngoingFaultText: ongoingFaultText(record.ActualOngoingFault),
    BatteryOrLine: record.BatteryOrLine === null ? null : batteryOrLineText(record.BatteryOrLine),
    AverageCurrent1m: record.AverageCurrent1m,
    PrefaultCurrent: record.PrefaultCurrent,
    AverageCurrent1h: record.AverageCurrent1h,
    PeakCurrent24h: record.PeakCurrent24h,
    BatteryMCU: record.BatteryMCU,
    BatteryLED: record.BatteryLED,
    Temperature: record.Temperature,
    rssi: record.rssi,
    events: events.map(dnp3Event),
  };
}

function dnp3Event(e: EventRecord): Dnp3StandardEvent | Dnp3Dm1Event {
  const base = { EventID: e.EventID, EventTimestamp: e.EventTimestamp, EventType: e.EventType };
  return e.table === 'dm1_event_records'
    ? { ...base, PhaseAEvent: e.PhaseAEvent, PhaseBEvent: e.PhaseBEvent, PhaseCEvent: e.PhaseCEvent }
    : { ...base, PrefaultCurrent: e.PrefaultCurrent, FaultCurrent: e.FaultCurrent, RecoverCurrent: e.RecoverCurrent };
}

/**
 * Where and what to send, or null: only a registered device with a dnp3QueueAddress gets output
 * (an unregistered device produces no DNP3 output, docs/decisions.md#unknown-device), and only a stored
 * check-in (a duplicate is not stored).
 */
export function dnp3Delivery(
  device: DeviceSnapshot | null,
  record: DeviceRecord,
  events: readonly EventRecord[],
  stored: boolean,
): { address: string; payload: Dnp3Output } | null {
  if (!stored || device === null || !device.dnp3QueueAddress) return null;
  return { address: device.dnp3QueueAddress, payload: buildDnp3Output(record, events) };
}
