// The dedup handler production runs (spec 6.1 step 6 and the duplicate check of step 8), table-tested: one row
// per rule. The state is what dedup holds for the device before the message.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dedupMessage } from '../../stages/dedup/handler.js';
import type { DedupState } from '../../stages/dedup/state.js';
import { REPROCESS_SOURCE } from '../../plumbing/sources.js';
import { enriched, ev } from './handler-messages.js';

const DATE = '2026-11-20T14:00:00.000Z';
const EARLIER = '2026-11-20T13:00:00.000Z';
const kept = (EventID: number, time: string, date = EARLIER) => ({ date, EventID, EventTimestamp: `2026-11-20T${time}Z` });
const state = (events: ReturnType<typeof kept>[] = [], recentDates: string[] = [], dm1: ReturnType<typeof kept>[] = []): DedupState => ({
  standard: { events, complete: true }, dm1: { events: dm1, complete: true }, recentDates,
});

interface Row { name: string; message: ReturnType<typeof enriched>; state: DedupState; forwardedEvents: number[] | null; duplicate: boolean }

const rows: Row[] = [
  { name: '6.1 step 6: a first check-in keeps all its events', message: enriched({ events: [ev(5, '13:59:00', 'TFault')] }), state: state(), forwardedEvents: [5], duplicate: false },
  { name: '6.1 step 6: an EventID at or below the last stored one is dropped', message: enriched({ events: [ev(100, '13:59:00', 'TFault'), ev(101, '13:59:30', 'PFault')] }), state: state([kept(100, '12:59:00')]), forwardedEvents: [101], duplicate: false },
  { name: '6.1 step 6: a reset EventID (0 or 1) more than 5 min after the last stored event starts again', message: enriched({ events: [ev(1, '13:30:00', 'TFault')] }), state: state([kept(900, '12:59:00')]), forwardedEvents: [1], duplicate: false },
  { name: '6.1 step 6: a reset EventID within 5 min of the last stored event is dropped', message: enriched({ events: [ev(1, '12:03:00', 'TFault')] }), state: state([kept(900, '12:59:00')]), forwardedEvents: [], duplicate: false },
  { name: '6.1 step 6: DM1 events are judged against the DM1 history only', message: enriched({ dm1: true, events: [ev(3, '13:59:00', 'FAULT_INITIAL', { PhaseAEvent: 'F' })] }), state: state([kept(50, '12:59:00')]), forwardedEvents: [3], duplicate: false },
  { name: '6.1 step 8: a resent check-in (same date) without events is not forwarded', message: enriched({}), state: state([], [DATE]), forwardedEvents: null, duplicate: true },
  // Events are judged against earlier check-ins only, so a resend's events go on; persist's unique keys then
  // store nothing twice, and an event the first copy lacked is not lost.
  { name: '6.1 step 8: a resent check-in with events is forwarded, marked duplicate', message: enriched({ events: [ev(100, '13:59:00', 'TFault'), ev(101, '13:59:40', 'PFault')] }), state: state([kept(100, '13:59:00', DATE)], [DATE]), forwardedEvents: [100, 101], duplicate: true },
  { name: 'a late check-in is judged against the events stored before its own date (device time)', message: enriched({ device: { date: '2026-11-20T12:00:00Z' }, events: [ev(100, '11:59:00', 'TFault')] }), state: state([kept(200, '13:59:00', DATE)]), forwardedEvents: [100], duplicate: false },
  { name: 'a reprocessed check-in is forwarded even when it is a duplicate (persist recomputes it)', message: { ...enriched({}), source: REPROCESS_SOURCE }, state: state([], [DATE]), forwardedEvents: [], duplicate: true },
];

for (const row of rows) {
  test(row.name, () => {
    const d = dedupMessage(row.message, row.state);
    assert.is(d.duplicate, row.duplicate, 'duplicate');
    assert.equal(d.forward ? d.forward.checkIn.events.map((e) => e.EventID) : null, row.forwardedEvents);
    if (d.forward) assert.is(d.forward.droppedEvents, row.message.checkIn.events.length - row.forwardedEvents!.length);
  });
}

test('the next state remembers the kept events and the date (a second delivery of the same message is a duplicate)', () => {
  const message = enriched({ events: [ev(7, '13:59:00', 'TFault')] });
  const first = dedupMessage(message, state());
  assert.equal(first.state.standard.events, [{ date: DATE, EventID: 7, EventTimestamp: '2026-11-20T13:59:00.000Z' }]);
  assert.equal(first.state.recentDates, [DATE]);
  const later = dedupMessage(enriched({ device: { date: '2026-11-20T14:15:00Z' }, events: [ev(7, '13:59:00', 'TFault')] }), first.state);
  assert.equal(later.forward?.checkIn.events, [], 'the next check-in resending event 7 drops it');
});

test.run();
