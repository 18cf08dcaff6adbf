import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { filterNewEvents, RESET_EVENT_WINDOW_MS, type EventFilterState } from '../../domain/event-filter.js';
import type { DeviceEvent } from '../../domain/checkin.js';
import { at, event, fixtureCheckIn } from './builders.js';

const state = (lastEventId: number, time: string): EventFilterState => ({ lastEventId, lastEventTimestamp: at(time) });
const e = (id: number, time: string) => event(id, time, 'TFault');

// [name, state before, events in message order, kept EventIDs, state after, drop reasons]
type Row = [string, EventFilterState | null, DeviceEvent[], number[], EventFilterState | null, string[]];
const rows: Row[] = [
  // 6.1 step 6: nothing stored -> keep all
  ['nothing stored: keep all', null, [e(5, '14:00:00'), e(6, '14:01:00')], [5, 6], state(6, '14:01:00'), []],
  ['nothing stored: a reset event is kept too', null, [e(0, '14:00:00')], [0], state(0, '14:00:00'), []],
  ['nothing stored, no events: state stays null', null, [], [], null, []],
  // 6.1 step 6: keep an event if its EventID is higher than the latest stored event
  ['higher EventID kept', state(100, '14:00:00'), [e(101, '14:01:00')], [101], state(101, '14:01:00'), []],
  ['equal EventID dropped', state(101, '14:04:10'), [e(101, '14:04:10')], [], state(101, '14:04:10'), ['not-newer']],
  ['lower EventID dropped', state(101, '14:04:10'), [e(100, '14:03:00')], [], state(101, '14:04:10'), ['not-newer']],
  ['lower EventID with a later timestamp still dropped', state(101, '14:00:00'), [e(50, '15:00:00')], [], state(101, '14:00:00'), ['not-newer']],
  // within one message, in order, updating the mark as they go
  ['in-message resend dropped', state(10, '14:00:00'), [e(11, '14:01:00'), e(11, '14:01:00')], [11], state(11, '14:01:00'), ['not-newer']],
  ['out of order inside a message: lower after higher dropped', null, [e(7, '14:02:00'), e(6, '14:01:00')], [7], state(7, '14:02:00'), ['not-newer']],
  ['mark keeps the latest timestamp when an ID comes with an earlier clock', state(10, '14:10:00'), [e(11, '14:00:00')], [11], state(11, '14:10:00'), []],
  // reset event (EventID 0 or 1): kept when more than 5 minutes after the last stored event
  ['reset EventID 0 at +4:59.999 dropped', state(200, '14:00:00'), [e(0, '14:04:59.999')], [], state(200, '14:00:00'), ['reset-within-window']],
  ['reset EventID 0 at +5:00.000 dropped (not more than 5 min)', state(200, '14:00:00'), [e(0, '14:05:00')], [], state(200, '14:00:00'), ['reset-within-window']],
  ['reset EventID 0 at +5:00.001 kept, mark restarts', state(200, '14:00:00'), [e(0, '14:05:00.001')], [0], state(0, '14:05:00.001'), []],
  ['reset EventID 1 at +4:59.999 dropped', state(200, '14:00:00'), [e(1, '14:04:59.999')], [], state(200, '14:00:00'), ['reset-within-window']],
  ['reset EventID 1 at +5:00.000 dropped', state(200, '14:00:00'), [e(1, '14:05:00')], [], state(200, '14:00:00'), ['reset-within-window']],
  ['reset EventID 1 at +5:00.001 kept', state(200, '14:00:00'), [e(1, '14:05:00.001')], [1], state(1, '14:05:00.001'), []],
  ['EventID 2 is not a reset event', state(200, '14:00:00'), [e(2, '15:00:00')], [], state(200, '14:00:00'), ['not-newer']],
  ['reset event before the last event dropped', state(200, '14:00:00'), [e(0, '13:00:00')], [], state(200, '14:00:00'), ['reset-within-window']],
  ['after a reset, the counter climbs again', state(200, '14:00:00'), [e(0, '14:10:00'), e(1, '14:11:00'), e(2, '14:12:00')], [0, 1, 2], state(2, '14:12:00'), []],
  ['reset then resent reset in the same message dropped', state(200, '14:00:00'), [e(0, '14:10:00'), e(0, '14:10:00')], [0], state(0, '14:10:00'), ['reset-within-window']],
  ['second reset 5 min after the first restarts again', state(200, '14:00:00'), [e(1, '14:10:00'), e(1, '14:15:00.001')], [1, 1], state(1, '14:15:00.001'), []],
  ['mark 0, then EventID 1 is simply higher', state(0, '14:00:00'), [e(1, '14:00:30')], [1], state(1, '14:00:30'), []],
  ['window counts from the latest timestamp, not from the highest ID', state(200, '14:10:00'), [e(201, '14:00:00'), e(0, '14:12:00')], [201], state(201, '14:10:00'), ['reset-within-window']],
];

for (const [name, before, events, keptIds, after, reasons] of rows) {
  test(name, () => {
    const r = filterNewEvents(events, before);
    assert.equal(r.kept.map((k) => k.EventID), keptIds, 'kept');
    assert.equal(r.state, after, 'state');
    assert.equal(r.dropped.map((d) => d.reason), reasons, 'drop reasons');
    assert.is(r.kept.length + r.dropped.length, events.length);
  });
}

test('window is 5 minutes', () => {
  assert.is(RESET_EVENT_WINDOW_MS, 300_000);
});

test('fixtures 002 then 011: the resent EventIDs 100 and 101 are dropped', () => {
  const first = filterNewEvents(fixtureCheckIn('002-permanent-fault.json').events, null);
  assert.equal(first.kept.map((k) => k.EventID), [101]);
  const second = filterNewEvents(fixtureCheckIn('011-old-event-ids-dropped.json').events, first.state);
  assert.equal(second.kept, []);
  assert.equal(second.state, first.state);
});

test('fixture 003 (resent 002) keeps nothing', () => {
  const first = filterNewEvents(fixtureCheckIn('002-permanent-fault.json').events, null);
  assert.is(filterNewEvents(fixtureCheckIn('003-permanent-fault-resent.json').events, first.state).kept.length, 0);
});

test.run();
