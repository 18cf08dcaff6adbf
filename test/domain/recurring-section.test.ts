// Hot spots and chattering alarms, the pure rules (domain/recurring-section.ts, domain/alarm-chatter.ts,
// domain/alarm-states.ts mayShelve): which incidents count toward a section, the window by device time of the
// first trip, the organisation's numbers or the defaults, a masked organisation's count and text, which kinds
// chatter, and who may shelve.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chatters, isChattering } from '../../domain/alarm-chatter.js';
import { ALARM_KINDS, alarmKind, RECURRING_SECTION } from '../../domain/alarm-kinds.js';
import { mayShelve } from '../../domain/alarm-states.js';
import { namesFaultClass } from '../../domain/fault-masking.js';
import {
  countedIn, DEFAULT_RECURRING_SECTION, holds, hotSpotEpisode, nextEndAt, recurringSectionRule, recurringSectionSummary, windowStart, type CountedIncident,
} from '../../domain/recurring-section.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-28T12:00:00Z');
const A = '861000000009030';
const B = '861000000009050';
let id = 0;
const incident = (daysAgo: number, kind: CountedIncident['kind'] = 'momentary', from = [A]): CountedIncident =>
  ({ id: ++id, kind, firstTripAt: NOW - daysAgo * DAY, sections: from.map((imei) => ({ from: { imei, name: null } })) });
const rule = DEFAULT_RECURRING_SECTION;

test('defaults 3 in 30; an organisation\'s numbers replace them one by one', () => {
  assert.equal(recurringSectionRule(null, null), { incidents: 3, days: 30 });
  assert.equal(recurringSectionRule(5, null), { incidents: 5, days: 30 });
  assert.equal(recurringSectionRule(null, 7), { incidents: 3, days: 7 });
  assert.is(windowStart(rule, NOW), NOW - 30 * DAY);
});

test('three momentaries of one section within 30 days hold; spread over 31 they do not', () => {
  const within = [incident(29), incident(15), incident(0)];
  assert.ok(holds(countedIn(within, A, false, rule, NOW), rule));
  const spread = [incident(31), incident(16), incident(0)];
  assert.is(countedIn(spread, A, false, rule, NOW).length, 2);
  assert.not.ok(holds(countedIn(spread, A, false, rule, NOW), rule));
  // Exactly D days old is outside the window (it is "within" the last D days only when younger).
  assert.not.ok(holds(countedIn([incident(30), incident(1), incident(0)], A, false, rule, NOW), rule));
});

test('a hot spot next ends when its N-th newest counted incident leaves the window; its episode names its first and newest', () => {
  const counted = countedIn([incident(29), incident(20), incident(10), incident(5)], A, false, rule, NOW);
  assert.is(nextEndAt(counted, rule), NOW - 20 * DAY + 30 * DAY, 'four counted: it holds until the second oldest leaves');
  assert.is(nextEndAt(counted.slice(0, 2), rule), null, 'below N: it does not hold');
  assert.is(hotSpotEpisode(counted), `recurring-section:${counted[0]!.id}-${counted[3]!.id}`);
  // Ended by time (the 29-day one left), back with an older incident written late: the same newest, another first.
  const later = NOW + 2 * DAY;
  const back = countedIn([...counted.slice(0, 3), incident(15)], A, false, rule, later);
  assert.is(back[back.length - 1]!.id, counted[2]!.id);
  assert.not.equal(hotSpotEpisode(back), hotSpotEpisode(counted.slice(0, 3)));
});

test('only the section\'s momentary incidents count, oldest first; an incident of two sections counts for each', () => {
  const rows = [incident(3), incident(2, 'permanent'), incident(1, 'unknown'), incident(4, 'momentary', [B]), incident(5, 'momentary', [A, B])];
  assert.equal(countedIn(rows, A, false, rule, NOW).map((i) => i.firstTripAt), [NOW - 5 * DAY, NOW - 3 * DAY]);
  assert.equal(countedIn(rows, B, false, rule, NOW).length, 2);
});

test('a masked organisation counts every incident of the section, and its text names no class', () => {
  const rows = [incident(3, 'permanent'), incident(2, 'unknown'), incident(1)];
  assert.is(countedIn(rows, A, true, rule, NOW).length, 3);
  assert.is(countedIn(rows, A, false, rule, NOW).length, 1);
  const masked = recurringSectionSummary(3, rule, 'Lateral A', true);
  assert.is(masked, '3 incidents within 30 days in section Lateral A');
  assert.not.ok(namesFaultClass(masked));
  assert.is(recurringSectionSummary(3, rule, 'Lateral A', false), '3 momentary incidents within 30 days in section Lateral A');
  // The kind's label is read by every organisation (it is not a class kind): it must name no class either.
  assert.not.ok(namesFaultClass(alarmKind(RECURRING_SECTION)!.label));
  assert.equal([alarmKind(RECURRING_SECTION)!.defaultClass, alarmKind(RECURRING_SECTION)!.priority], ['maintenance', 'low']);
});

test('chattering: fault-code kinds chatter, events and the clock do not; a row of more than one episode is chattering', () => {
  assert.equal(ALARM_KINDS.filter((k) => chatters(k.id)).map((k) => k.id), ALARM_KINDS.filter((k) => k.source === 'fault-code').map((k) => k.id));
  assert.not.ok(chatters(RECURRING_SECTION));
  assert.not.ok(chatters('communication-lost'));
  assert.not.ok(isChattering(1));
  assert.ok(isChattering(2));
});

test('shelving: maintenance alarms, and chattering alarms of any class; a single operations episode stays in sight', () => {
  assert.ok(mayShelve('maintenance'));
  assert.not.ok(mayShelve('operations'));
  assert.not.ok(mayShelve('operations', 1));
  assert.ok(mayShelve('operations', 2));
});

test.run();
