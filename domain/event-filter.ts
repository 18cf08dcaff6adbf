// Event filter (spec 6.1 step 6, spec 8 "Reset-event dedup window", docs/decisions.md#event-filter): drop
// events that are already stored when a device resends a check-in. Per device and per table (standard vs
// DM1) the caller keeps a high-water mark; this module decides, it stores nothing.
import type { DeviceEvent } from './checkin.js';
import { epochMs } from './utc-timestamp.js';

/** Spec 8: a reset event is kept only if it is more than this long after the last stored event. */
export const RESET_EVENT_WINDOW_MS = 5 * 60 * 1000;

/** EventIDs of a device whose event counter restarted (power cycle, firmware update). */
export const RESET_EVENT_IDS: ReadonlySet<number> = new Set([0, 1]);

/**
 * The high-water mark of one device and one table. `lastEventTimestamp` is the latest EventTimestamp seen
 * among the events since the mark last restarted (device clock, as reported, before any Fault <50 shift).
 * null: nothing stored yet.
 */
export interface EventFilterState {
  lastEventId: number;
  lastEventTimestamp: string;
}

export type DropReason = 'not-newer' | 'reset-within-window';

export interface EventFilterResult<E extends DeviceEvent> {
  kept: E[];
  dropped: { event: E; reason: DropReason }[];
  state: EventFilterState | null;
}

/**
 * Keeps an event if its EventID is above the mark; or if it is a reset event (EventID 0 or 1) whose
 * EventTimestamp is more than 5 minutes after the last stored event (exactly 5:00.000 is not more), in which
 * case the mark restarts from it. Events are taken in message order and each kept one moves the mark
 * before the next is looked at, so a resend inside one message is dropped too.
 *
 * Decision: the "last stored event" time is the latest timestamp since the last restart (not the time of
 * the highest EventID), so one event with a wrong clock cannot open the reset window early.
 *
 * @example filterNewEvents(events, { lastEventId: 101, lastEventTimestamp: '2026-11-20T14:04:10.000Z' })
 */
export function filterNewEvents<E extends DeviceEvent>(events: readonly E[], state: EventFilterState | null): EventFilterResult<E> {
  const kept: E[] = [];
  const dropped: { event: E; reason: DropReason }[] = [];
  let current = state;
  for (const event of events) {
    if (current === null || event.EventID > current.lastEventId) {
      kept.push(event);
      current = advance(current, event);
    } else if (RESET_EVENT_IDS.has(event.EventID)
      && epochMs(event.EventTimestamp) - epochMs(current.lastEventTimestamp) > RESET_EVENT_WINDOW_MS) {
      kept.push(event);
      current = { lastEventId: event.EventID, lastEventTimestamp: event.EventTimestamp };
    } else {
      dropped.push({ event, reason: RESET_EVENT_IDS.has(event.EventID) ? 'reset-within-window' : 'not-newer' });
    }
  }
  return { kept, dropped, state: current };
}

function advance(state: EventFilterState | null, event: DeviceEvent): EventFilterState {
  const later = state === null || epochMs(event.EventTimestamp) > epochMs(state.lastEventTimestamp)
    ? event.EventTimestamp
    : state.lastEventTimestamp;
  return { lastEventId: event.EventID, lastEventTimestamp: later };
}
