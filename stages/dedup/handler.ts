// dedup, the pure part (spec 6.1 step 6 and the duplicate check of step 8): drop events already stored and
// recognise a resent check-in. Returns the record to forward (or null) and the device's next state.
import { isDuplicateCheckIn } from '../../domain/duplicate-checkin.js';
import { filterNewEvents } from '../../domain/event-filter.js';
import { filterStateBefore, type KeptEvent } from '../../domain/event-history.js';
import type { DedupedCheckIn, EnrichedCheckIn } from '../../schemas/avro/values.js';
import { REPROCESS_SOURCE } from '../../plumbing/sources.js';
import { HISTORY_KEPT, RECENT_DATES_KEPT, type DedupState, type EventTableKey } from './state.js';

export interface DedupDecision {
  /** null: a resent check-in with nothing new; acknowledged and counted, not forwarded. */
  forward: DedupedCheckIn | null;
  duplicate: boolean;
  state: DedupState;
}

export const tableOf = (message: EnrichedCheckIn): EventTableKey => (message.checkIn.dm1_device ? 'dm1' : 'standard');

/**
 * `olderHistory`: kept events from before the held history, for a check-in older than all of it
 * (state.ts historyTooShort); otherwise empty.
 */
export function dedupMessage(message: EnrichedCheckIn, state: DedupState, olderHistory: readonly KeptEvent[] = []): DedupDecision {
  const { checkIn } = message;
  const { date } = checkIn.device_data;
  const table = tableOf(message);
  const history = state[table];
  const filtered = filterNewEvents(checkIn.events, filterStateBefore([...olderHistory, ...history.events], date));
  const duplicate = isDuplicateCheckIn(checkIn, state.recentDates);

  const kept = filtered.kept.map((e) => ({ date, EventID: e.EventID, EventTimestamp: e.EventTimestamp }));
  const events = [...history.events, ...kept];
  const trimmed = events.length > HISTORY_KEPT;
  const next: DedupState = {
    ...state,
    [table]: { events: trimmed ? events.slice(-HISTORY_KEPT) : events, complete: history.complete && !trimmed },
    recentDates: duplicate ? state.recentDates : [...state.recentDates, date].slice(-RECENT_DATES_KEPT),
  };
  // A resent check-in that still brings events we never stored is forwarded: persist attaches them to the
  // stored record (its unique key stops a second record), so nothing the device sent is lost. A reprocessed
  // check-in is by definition stored already, and goes on so persist can recompute it.
  if (duplicate && filtered.kept.length === 0 && message.source !== REPROCESS_SOURCE) return { forward: null, duplicate, state: next };
  return {
    forward: { ...message, checkIn: { ...checkIn, events: filtered.kept }, droppedEvents: filtered.dropped.length },
    duplicate,
    state: next,
  };
}
