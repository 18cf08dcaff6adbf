import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { filterStateBefore, type KeptEvent } from '../../domain/event-history.js';
import { filterNewEvents } from '../../domain/event-filter.js';

const kept = (date: string, EventID: number, EventTimestamp = date): KeptEvent => ({ date, EventID, EventTimestamp });
const ev = (EventID: number, EventTimestamp: string) => ({
  EventID, EventTimestamp, EventType: 'TFault', PrefaultCurrent: 1, FaultCurrent: 2, RecoverCurrent: 0, PhaseAEvent: null, PhaseBEvent: null, PhaseCEvent: null,
});

test('no earlier check-in: no mark (everything is new)', () => {
  assert.is(filterStateBefore([], '2026-11-20T14:00:00.000Z'), null);
  assert.is(filterStateBefore([kept('2026-11-20T15:00:00.000Z', 9)], '2026-11-20T14:00:00.000Z'), null);
});

test('in order, the mark is the last kept event: the spec high-water mark', () => {
  const history = [kept('2026-11-20T14:00:00.000Z', 100), kept('2026-11-20T14:05:00.000Z', 101)];
  assert.equal(filterStateBefore(history, '2026-11-20T15:10:00.000Z'), { lastEventId: 101, lastEventTimestamp: '2026-11-20T14:05:00.000Z' });
});

test('a check-in that arrives late is judged against the check-ins before it, not the one that overtook it', () => {
  // 14:10 (event 12) arrived before 14:05 (event 11): event 11 is genuine and must be kept.
  const history = [kept('2026-11-20T14:00:00.000Z', 10), kept('2026-11-20T14:10:00.000Z', 12)];
  const state = filterStateBefore(history, '2026-11-20T14:05:00.000Z');
  assert.equal(state, { lastEventId: 10, lastEventTimestamp: '2026-11-20T14:00:00.000Z' });
  assert.equal(filterNewEvents([ev(11, '2026-11-20T14:04:00.000Z')], state).kept.map((e) => e.EventID), [11]);
});

test('fixture 011: events 100 and 101 resent with a later check-in stay dropped', () => {
  const state = filterStateBefore([kept('2026-11-20T14:05:00.000Z', 101, '2026-11-20T14:04:10.000Z')], '2026-11-20T15:10:00.000Z');
  const result = filterNewEvents([ev(100, '2026-11-20T14:03:00.000Z'), ev(101, '2026-11-20T14:04:10.000Z')], state);
  assert.equal(result.kept, []);
});

test('a reset event restarts the mark; its time restarts too', () => {
  const history = [kept('2026-11-20T14:00:00.000Z', 500, '2026-11-20T13:59:00.000Z'), kept('2026-11-20T15:00:00.000Z', 0, '2026-11-20T14:30:00.000Z')];
  assert.equal(filterStateBefore(history, '2026-11-20T16:00:00.000Z'), { lastEventId: 0, lastEventTimestamp: '2026-11-20T14:30:00.000Z' });
});

test('two events of one check-in: order of keeping decides, then the later time is kept', () => {
  const history = [kept('2026-11-20T14:00:00.000Z', 5, '2026-11-20T13:58:00.000Z'), kept('2026-11-20T14:00:00.000Z', 6, '2026-11-20T13:57:00.000Z')];
  assert.equal(filterStateBefore(history, '2026-11-20T14:00:00.001Z'), { lastEventId: 6, lastEventTimestamp: '2026-11-20T13:58:00.000Z' });
});

test('a check-in with the same date (a resend) sees only what came before that date', () => {
  assert.is(filterStateBefore([kept('2026-11-20T14:05:00.000Z', 101)], '2026-11-20T14:05:00.000Z'), null);
});

test.run();
