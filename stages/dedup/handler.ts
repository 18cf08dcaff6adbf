// dedup, the pure part (spec 6.1 step 6 and the duplicate check of step 8): drop events already stored and
// recognise a resent check-in. Returns the record to forward (or null) and the device's next state.
import { isDuplicateCheckIn } from '../../domain/duplicate-checkin.js';
import { filterNewEvents } from '../../domain/event-filter.js';
import type { DedupedCheckIn, EnrichedCheckIn } from '../../schemas/avro/values.js';
import { RECENT_DATES_KEPT, type DedupState } from './state.js';

export interface DedupDecision {
  /** null: a resent check-in with nothing new; acknowledged and counted, not forwarded. */
  forward: DedupedCheckIn | null;
  duplicate: boolean;
  state: DedupState;
}

export function dedupMessage(message: EnrichedCheckIn, state: DedupState): DedupDecision {
  const { checkIn } = message;
  const table = checkIn.dm1_device ? 'dm1' : 'standard';
  const filtered = filterNewEvents(checkIn.events, state[table]);
  const duplicate = isDuplicateCheckIn(checkIn, state.recentDates);
  const recentDates = duplicate ? state.recentDates : [...state.recentDates, checkIn.device_data.date].slice(-RECENT_DATES_KEPT);
  const next: DedupState = { ...state, [table]: filtered.state, recentDates };
  // A resent check-in that still brings events we never stored is forwarded: persist attaches them to the
  // stored record (its unique key stops a second record), so nothing the device sent is lost.
  if (duplicate && filtered.kept.length === 0) return { forward: null, duplicate, state: next };
  return {
    forward: { ...message, checkIn: { ...checkIn, events: filtered.kept }, droppedEvents: filtered.dropped.length },
    duplicate,
    state: next,
  };
}
