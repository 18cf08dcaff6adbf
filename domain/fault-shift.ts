// Fault <50 timestamp adjustment at storage time (spec 3.4 last paragraph, spec 8 "Timestamp adjustment",
// docs/decisions.md#fault-50-adjustment). A `Fault <50` event followed, at most 6 minutes later, by an SOTF,
// PFault or TFault event of the same device is moved back 30 seconds, once. The pair may arrive in one
// message or in two, so the caller passes the device's recent stored standard events as well.
import { epochMs, shiftUtc } from './utc-timestamp.js';

import { SHIFT_EARLY_TYPE, SHIFT_TRIGGER_TYPES } from './fault-events.js';

export const FAULT_SHIFT_MS = 30 * 1000;
/** Inclusive: exactly 6:00.000 apart still applies, 6:00.001 does not. */
export const FAULT_SHIFT_WINDOW_MS = 6 * 60 * 1000;

/** The fields the rule reads from a new event. */
export interface ShiftableEvent {
  EventID: number;
  EventTimestamp: string;
  EventType: string;
}

/**
 * A stored standard event of the device. For a Fault <50, `shifted` says whether it was already moved
 * (then EventTimestamp is the moved value and it is never moved again); other types ignore the flag.
 */
export interface StoredShiftCandidate extends ShiftableEvent {
  shifted: boolean;
}

/** A move: the event (EventID + its timestamp before the move) gets `toTimestamp`. */
export interface EventShift {
  EventID: number;
  fromTimestamp: string;
  toTimestamp: string;
}

/** One decision of planFaultShifts. */
export interface TimestampShift extends EventShift {
  /** true: an already stored event (an UPDATE); false: an event of this message (stored with the new time). */
  stored: boolean;
}

interface Item extends StoredShiftCandidate { stored: boolean; at: number }

/**
 * Which Fault <50 events move. A pair counts when at least one of its two events is new (a pair of two
 * stored events was decided when the later one arrived). "Followed by" is by EventTimestamp; at an equal
 * timestamp the higher EventID is the later event. Timestamps compared are the device's own, before any
 * move. Standard events only: DM1 events have no such types, and the caller passes none.
 *
 * @example fixture 007: Fault <50 at 14:25:00 and TFault at 14:28:00 -> EventID 201 moves to 14:24:30
 */
export function planFaultShifts(newEvents: readonly ShiftableEvent[], stored: readonly StoredShiftCandidate[]): TimestampShift[] {
  const items: Item[] = [
    ...stored.map((e) => ({ ...pick(e), shifted: e.shifted, stored: true, at: epochMs(e.EventTimestamp) })),
    ...newEvents.map((e) => ({ ...pick(e), shifted: false, stored: false, at: epochMs(e.EventTimestamp) })),
  ];
  const triggers = items.filter((e) => SHIFT_TRIGGER_TYPES.has(e.EventType));
  const shifts: TimestampShift[] = [];
  for (const fault of items) {
    if (fault.EventType !== SHIFT_EARLY_TYPE || fault.shifted) continue;
    const followed = triggers.some((t) => (t.stored === false || fault.stored === false)
      && (t.at > fault.at || (t.at === fault.at && t.EventID > fault.EventID))
      && t.at - fault.at <= FAULT_SHIFT_WINDOW_MS);
    if (followed) {
      shifts.push({
        EventID: fault.EventID,
        fromTimestamp: fault.EventTimestamp,
        toTimestamp: shiftUtc(fault.EventTimestamp, -FAULT_SHIFT_MS),
        stored: fault.stored,
      });
    }
  }
  return shifts;
}

/**
 * The timestamps a new event is stored with once its message's shifts apply: the one place that applies a
 * shift to an event (the pipeline's stored view, persist's rows and the spec-as-written composition all call
 * it). Events stored by earlier messages are moved by persist's UPDATE (stages/persist/merge.ts), which can
 * only run in the database.
 */
export function shiftedTimestamps(event: { EventID: number; EventTimestamp: string }, shifts: readonly EventShift[]): { EventTimestamp: string; OriginalEventTimestamp: string; TimestampShifted: boolean } {
  const shift = shifts.find((s) => s.EventID === event.EventID && s.fromTimestamp === event.EventTimestamp);
  return { EventTimestamp: shift ? shift.toTimestamp : event.EventTimestamp, OriginalEventTimestamp: event.EventTimestamp, TimestampShifted: shift !== undefined };
}

function pick(e: ShiftableEvent): ShiftableEvent {
  return { EventID: e.EventID, EventTimestamp: e.EventTimestamp, EventType: e.EventType };
}
