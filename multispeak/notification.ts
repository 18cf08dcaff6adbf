// What one outbox row says about a device, read once from its jsonb payload (stages/notify/handler.ts
// writes it). Input is `unknown` until here; every envelope builder takes this validated shape.
import { ongoingFaultText } from '../domain/ongoing-fault-codes.js';

export interface FaultEvent {
  EventType: string;
  EventTimestamp: string;
  EventID?: number;
}

export interface Notification {
  /** Stable per outbox row: an OMS can drop a redelivery (at least once). */
  messageId: string;
  kind: 'checkin' | 'status';
  IMEINumber: string;
  name: string | null;
  /** ISO 8601 UTC of the check-in. */
  date: string;
  fault: number;
  faultText: string;
  previousFault: number | null;
  averageCurrent1m: number | null;
  batteryMCU: number | null;
  /** 0 line, 1 battery (spec 2.2). */
  batteryOrLine: number | null;
  events: FaultEvent[];
  /** The device's location, where known (AssessmentLocation carries it). */
  lat?: number | null;
  long?: number | null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Reads an outbox payload; throws on a payload no envelope can be built from (the row goes dead). */
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
  };
}

/** The newest fault event, which names the problem (ODEvent problemCode, assessment category). */
export function latestEvent(n: Notification): FaultEvent | null {
  return n.events.reduce<FaultEvent | null>((a, e) => (a === null || e.EventTimestamp >= a.EventTimestamp ? e : a), null);
}

/** Integration convention (reference/multispeak.md 11): a fault opens the point, no fault closes it. */
export const statusOf = (n: Notification): 'Open' | 'Closed' => (n.fault > 0 ? 'Open' : 'Closed');
