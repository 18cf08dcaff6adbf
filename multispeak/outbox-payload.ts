// The MultiSpeak outbox row's payload: one type, its writer (the notify stage, when a check-in is stored) and
// its reader (the delivery worker, when it builds the envelope) side by side, so the two cannot drift apart.
// Name and location are the check-in-time copies of spec 2.2 (CurrentName, CurrentLat, CurrentLong): a device
// renamed or moved after the check-in does not change what the notification of that check-in says.
import type { DeviceRecord } from '../domain/device-record.js';
import type { EventRecord } from '../domain/event-record.js';
import { ongoingFaultText } from '../domain/ongoing-fault-codes.js';
import { isTestFaultMark, type TestFaultMark } from '../domain/checkin.js';
import type { FaultEvent, Notification } from './notification.js';

export interface OutboxPayload {
  IMEINumber: string;
  /** CurrentName at the check-in. */
  Real_Name: string | null;
  CurrentLat: number | null;
  CurrentLong: number | null;
  /** ISO 8601 UTC of the check-in. */
  date: string;
  ActualOngoingFault: number;
  ActualOngoingFaultText: string;
  previousActualOngoingFault: number | null;
  AverageCurrent1m: number | null;
  BatteryMCU: number | null;
  BatteryOrLine: number | null;
  /** Status rows only: the fault events this check-in stored. */
  events?: EventRecord[];
  /** A test fault's check-in (docs/decisions.md#test-faults): the envelope says it is a test. */
  test?: TestFaultMark;
}

/** The fields of a stored record a notification carries (notify has the whole record, a resync the stored row). */
export type PayloadRecord = Pick<DeviceRecord, 'IMEINumber' | 'CurrentName' | 'CurrentLat' | 'CurrentLong' | 'date' | 'ActualOngoingFault' | 'AverageCurrent1m' | 'BatteryMCU' | 'BatteryOrLine'>;

/** The writer: what a stored check-in tells the OMS. */
export function outboxPayload(record: PayloadRecord, previousActualOngoingFault: number | null, events?: EventRecord[], test?: TestFaultMark | null): OutboxPayload {
  return {
    IMEINumber: record.IMEINumber, Real_Name: record.CurrentName, CurrentLat: record.CurrentLat, CurrentLong: record.CurrentLong,
    date: record.date, ActualOngoingFault: record.ActualOngoingFault, ActualOngoingFaultText: ongoingFaultText(record.ActualOngoingFault),
    previousActualOngoingFault, AverageCurrent1m: record.AverageCurrent1m, BatteryMCU: record.BatteryMCU, BatteryOrLine: record.BatteryOrLine,
    ...(events ? { events } : {}),
    ...(test ? { test: { id: test.id, phase: test.phase } } : {}),
  };
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * The reader: an outbox row's jsonb payload (unknown until here) as the notification every envelope builder
 * takes. Throws on a payload no envelope can be built from (the row goes dead).
 */
export function notificationFromPayload(messageId: string, kind: 'checkin' | 'status', payload: unknown): Notification {
  const p = (payload ?? {}) as Record<string, unknown>;
  const imei = str(p.IMEINumber);
  const date = str(p.date);
  const fault = num(p.ActualOngoingFault);
  if (!imei || !date || fault === null) throw new Error('outbox payload lacks IMEINumber, date or ActualOngoingFault');
  const events = Array.isArray(p.events)
    ? p.events.flatMap((e: unknown): FaultEvent[] => {
      const r = (e ?? {}) as Record<string, unknown>;
      const type = str(r.EventType);
      const at = str(r.EventTimestamp);
      return type && at ? [{ EventType: type, EventTimestamp: at, ...(num(r.EventID) !== null ? { EventID: num(r.EventID)! } : {}) }] : [];
    })
    : [];
  return {
    messageId, kind, IMEINumber: imei, name: str(p.Real_Name), date: new Date(date).toISOString(), fault,
    faultText: str(p.ActualOngoingFaultText) ?? ongoingFaultText(fault), previousFault: num(p.previousActualOngoingFault),
    averageCurrent1m: num(p.AverageCurrent1m), batteryMCU: num(p.BatteryMCU), batteryOrLine: num(p.BatteryOrLine), events,
    lat: num(p.CurrentLat), long: num(p.CurrentLong), test: isTestFaultMark(p.test) ? p.test : null,
  };
}
