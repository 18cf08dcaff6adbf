// The event filter in device time (spec 6.1 step 6 with docs/decisions.md#event-filter). The spec keeps an
// event when its EventID is above "the latest stored event". SQS does not keep order and a crash redelivers
// what was in flight, so a device's check-in can arrive after a later one of the same device; judged
// against events that overtook it, its own genuine events would be dropped as old, and lost. Decision:
// "latest" is read in device time: a check-in dated D is filtered against the events kept from the device's
// check-ins dated before D. In order (the normal case) that is exactly the spec's high-water mark; out of
// order it gives the answer the in-order run would have given, and a replay gives the same answer again.
import type { EventFilterState } from './event-filter.js';
import { RESET_EVENT_IDS } from './event-filter.js';
import { epochMs } from './utc-timestamp.js';

/** A kept event as the filter remembers it: the date of the check-in that brought it, and the event. */
export interface KeptEvent {
  /** device_data.date of the check-in (ISO UTC). */
  date: string;
  EventID: number;
  /** As the device reported it (before any Fault <50 move). */
  EventTimestamp: string;
}

/**
 * The high-water mark as of a check-in dated `date`: the kept events of earlier check-ins, replayed in
 * device-time order (check-in date, then the order they were kept in). Every kept event either raised the
 * mark or restarted it (a reset event), so the mark is the last one's EventID; its time is the latest
 * EventTimestamp since the last restart, as in event-filter.ts.
 */
export function filterStateBefore(history: readonly KeptEvent[], date: string): EventFilterState | null {
  const before = epochMs(date);
  const earlier = history
    .map((e, i) => ({ e, i, at: epochMs(e.date) }))
    .filter((x) => x.at < before)
    .sort((a, b) => a.at - b.at || a.i - b.i);
  let state: EventFilterState | null = null;
  for (const { e } of earlier) {
    const restarted = state !== null && e.EventID <= state.lastEventId && RESET_EVENT_IDS.has(e.EventID);
    const later: string = state === null || restarted || epochMs(e.EventTimestamp) > epochMs(state.lastEventTimestamp) ? e.EventTimestamp : state.lastEventTimestamp;
    state = { lastEventId: e.EventID, lastEventTimestamp: later };
  }
  return state;
}
