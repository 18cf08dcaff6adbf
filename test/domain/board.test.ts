// The board's pure rules (domain/board.ts, domain/alarm-states.ts): ISA-18.2 states, classes, shelving bounds,
// priorities (masked: one for every class kind) and the board's order.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ALARM_KINDS, FAULT_CLASS_KINDS } from '../../domain/alarm-kinds.js';
import { alarmClassOf, alarmState, isShelved, mayShelve, shelveMaxMinutes, shelveMinutesProblem, SHELVE_CHOICES_MINUTES } from '../../domain/alarm-states.js';
import { alarmPriority, compareBoardItems, incidentPriority, MASKED_FAULT_PRIORITY, type Ordered } from '../../domain/board.js';

const NOW = Date.parse('2026-11-25T12:00:00Z');

test('states: acknowledged and cleared are two facts; shelving hides until it expires', () => {
  const rows: [number | null, number | null, number | null, string][] = [
    [null, null, null, 'unacknowledged-active'],
    [NOW - 5, null, null, 'acknowledged-active'],
    [null, NOW - 5, null, 'unacknowledged-cleared'],
    [NOW - 9, NOW - 5, null, 'normal'],
    [null, null, NOW + 60_000, 'shelved'],
    [null, null, NOW - 1, 'unacknowledged-active'],
    [null, null, NOW, 'unacknowledged-active'],
    [NOW - 9, NOW - 5, NOW + 60_000, 'normal'],
    [NOW - 9, null, NOW + 60_000, 'shelved'],
  ];
  for (const [acknowledgedAt, clearedAt, shelvedUntil, state] of rows) {
    assert.is(alarmState({ acknowledgedAt, clearedAt, shelvedUntil }, NOW), state, JSON.stringify({ acknowledgedAt, clearedAt, shelvedUntil }));
  }
  assert.is(isShelved(null, NOW), false);
  assert.is(isShelved(NOW + 1, NOW), true);
});

test('classes: the rule\'s class wins, else the kind\'s; only maintenance may be shelved', () => {
  assert.is(alarmClassOf('low-battery', null), 'maintenance');
  assert.is(alarmClassOf('model-change', null), 'maintenance');
  assert.is(alarmClassOf('permanent', null), 'operations');
  assert.is(alarmClassOf('communication-lost', null), 'operations');
  assert.is(alarmClassOf('low-battery', 'operations'), 'operations');
  assert.is(alarmClassOf('no-such-kind', null), 'operations');
  assert.is(mayShelve('maintenance'), true);
  assert.is(mayShelve('operations'), false);
  for (const k of ALARM_KINDS) if (k.namesClass) assert.is(k.defaultClass, 'operations', `${k.id}: a fault is an operations alarm`);
});

test('shelving time: a quarter hour to a week, whole minutes; the portal\'s choices are all allowed', () => {
  for (const bad of [undefined, null, '60', 14, 60.5, 7 * 24 * 60 + 1, -60]) assert.ok(shelveMinutesProblem(bad), String(bad));
  for (const ok of [15, 60, 7 * 24 * 60, ...SHELVE_CHOICES_MINUTES]) assert.is(shelveMinutesProblem(ok), null, String(ok));
});

test('a chattering operations alarm is shelved for at most its cap; a maintenance one for a week; others not at all', () => {
  assert.is(shelveMaxMinutes('operations', 2, 480), 480);
  assert.is(shelveMaxMinutes('operations', 2, 100_000), 7 * 24 * 60, 'never beyond a week');
  assert.is(shelveMaxMinutes('maintenance', 1, 480), 7 * 24 * 60);
  assert.is(shelveMaxMinutes('operations', 1, 480), null);
  assert.ok(shelveMinutesProblem(481, 480));
  assert.match(shelveMinutesProblem(481, 480)!, 'from 15 to 480');
  assert.is(shelveMinutesProblem(480, 480), null);
});

test('priorities: permanent and open incidents critical, maintenance low; masked, every class kind the same', () => {
  assert.is(alarmPriority('permanent', false), 'critical');
  assert.is(alarmPriority('temporary', false), 'medium');
  assert.is(alarmPriority('communication-lost', false), 'high');
  assert.is(alarmPriority('low-battery', false), 'low');
  assert.is(alarmPriority('model-change', false), 'low');
  assert.is(incidentPriority('open'), 'critical');
  assert.is(incidentPriority('located'), 'critical');
  assert.is(incidentPriority('restored'), 'medium');
  assert.is(MASKED_FAULT_PRIORITY, 'critical', 'never an understatement');
  assert.equal(new Set(FAULT_CLASS_KINDS.map((k) => alarmPriority(k, true))), new Set([MASKED_FAULT_PRIORITY]));
  assert.ok(new Set(FAULT_CLASS_KINDS.map((k) => alarmPriority(k, false))).size > 1, 'unmasked, the classes differ (so the masked rule has something to hide)');
  for (const k of ALARM_KINDS.filter((x) => !x.namesClass)) assert.is(alarmPriority(k.id, true), alarmPriority(k.id, false), k.id);
});

test('order: priority, then incidents before alarms, then newest first, then id', () => {
  const item = (type: Ordered['type'], priority: Ordered['priority'], at: number, id: number): Ordered => ({ type, priority, at, id });
  const items = [
    item('alarm', 'low', 50, 1), item('alarm', 'critical', 10, 2), item('incident', 'critical', 5, 3), item('alarm', 'high', 40, 4),
    item('alarm', 'critical', 30, 5), item('incident', 'medium', 99, 6), item('alarm', 'critical', 30, 7),
  ];
  assert.equal([...items].sort(compareBoardItems).map((i) => i.id), [3, 7, 5, 2, 4, 6, 1]);
  assert.equal([...items].reverse().sort(compareBoardItems).map((i) => i.id), [3, 7, 5, 2, 4, 6, 1], 'a total order: the input order does not matter');
});

test.run();
