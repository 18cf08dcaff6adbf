// What one outbox row says about a device, as every envelope builder takes it (read from the row's payload by
// outbox-payload.ts).
import type { TestFaultMark } from '../domain/checkin.js';

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
  /** The device's location at the check-in, where known (AssessmentLocation carries it). */
  lat: number | null;
  long: number | null;
  /** Set when a test fault sent the check-in. */
  test?: TestFaultMark | null;
}

/**
 * Every MultiSpeak object's `comments` (mspObject, both versions): a test fault's notification opens with
 * TEST, so an OMS operator sees it for what it is (docs/decisions.md#test-faults).
 */
export function commentOf(n: Notification, text: string): string {
  return n.test ? `TEST (faultline test fault ${n.test.id}, ${n.test.phase === 'fault' ? 'synthetic fault' : 'clearing it'}; not a real fault): ${text}` : text;
}

/** The newest fault event, which names the problem (ODEvent problemCode, assessment category). */
export function latestEvent(n: Notification): FaultEvent | null {
  return n.events.reduce<FaultEvent | null>((a, e) => (a === null || e.EventTimestamp >= a.EventTimestamp ? e : a), null);
}

/** Integration convention (docs/multispeak.md): a fault opens the point, no fault closes it. */
export const statusOf = (n: Notification): 'Open' | 'Closed' => (n.fault > 0 ? 'Open' : 'Closed');
