import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FaultedSection } from '../../domain/faulted-section.js';
import {
  advanceIncident, assignTrips, currentBack, deviceHealth, incidentKind, type IncidentFacts, type IncidentKind, type IncidentState, type LatestCheckIn, type Trip,
} from '../../domain/incident-rules.js';

const MIN = 60_000;
const W = 2 * MIN;
const trip = (imei: string, atMin: number, eventType = 'PFault'): Trip => ({ imei, eventType, at: atMin * MIN });

// [name, active incidents (key, first, last in minutes), trips, expected groups: key (null new) and trip imeis]
const windowRows: [string, [string, number, number][], Trip[], [string | null, string[]][]][] = [
  ['trips within the window form one incident', [], [trip('a', 0), trip('b', 1), trip('c', 2)], [[null, ['a', 'b', 'c']]]],
  ['a trip past the window opens a second incident', [], [trip('a', 0), trip('b', 1), trip('c', 2.5)], [[null, ['a', 'b']], [null, ['c']]]],
  ['a later trip within the window joins the open incident', [['i1', 0, 0]], [trip('b', 1.5)], [['i1', ['b']]]],
  ['a late-arriving earlier trip joins too (device time)', [['i1', 1, 2]], [trip('b', 0.5)], [['i1', ['b']]]],
  ['past the window of the active incident: a new one', [['i1', 0, 1]], [trip('b', 2.5)], [[null, ['b']]]],
  ['the window is the span of all trips, not chained', [], [trip('a', 0), trip('b', 1.5), trip('c', 3)], [[null, ['a', 'b']], [null, ['c']]]],
];
for (const [name, active, trips, expected] of windowRows) {
  test(`window: ${name}`, () => {
    const groups = assignTrips(active.map(([key, f, l]) => ({ key, firstTripAt: f * MIN, lastTripAt: l * MIN })), trips, W);
    assert.equal(groups.map((g) => [g.key, g.trips.map((t) => t.imei)]), expected);
  });
}

const kindRows: [string[], IncidentKind][] = [
  [['PFault'], 'permanent'], [['TFault'], 'momentary'], [['Fault <50', 'TFault'], 'momentary'], [['TFault', 'PFault'], 'permanent'],
  [['SOTF'], 'permanent'], [['Overcurrent'], 'unknown'], [['Fault Like', 'TFault'], 'momentary'], [['FAULT_INITIAL'], 'unknown'],
];
for (const [types, kind] of kindRows) test(`kind: ${types.join(' + ')} -> ${kind}`, () => assert.is(incidentKind(types), kind));

const NOW = Date.UTC(2026, 10, 20, 12);
const LIMITS = { floorS: 300, ceilingS: 26 * 3600 }; // CHECKIN_INTERVAL_FLOOR_MINUTES 5, OFFLINE_AFTER_HOURS 26
const seen = (agoMs: number, over: Partial<LatestCheckIn> = {}): LatestCheckIn => ({ date: NOW - agoMs, actualOngoingFault: 0, expectedS: null, ...over });
test('health: recent check-in reports; silent (by the communication-lost rule), comm lost and never seen do not', () => {
  assert.equal(deviceHealth(seen(3_600_000), NOW, LIMITS), { ok: true });
  assert.equal(deviceHealth(seen(27 * 3_600_000), NOW, LIMITS), { ok: false, reason: `silent since ${new Date(NOW - 27 * 3_600_000).toISOString()}` });
  // A device that checks in every 15 minutes is silent after two missed intervals; an hourly one is not yet.
  assert.equal(deviceHealth(seen(31 * 60_000, { expectedS: 900 }), NOW, LIMITS), { ok: false, reason: `silent since ${new Date(NOW - 31 * 60_000).toISOString()}` });
  assert.equal(deviceHealth(seen(31 * 60_000, { expectedS: 3600 }), NOW, LIMITS), { ok: true });
  assert.equal(deviceHealth(seen(0, { actualOngoingFault: 400 }), NOW, LIMITS), { ok: false, reason: 'communication lost' });
  assert.equal(deviceHealth(seen(0, { actualOngoingFault: 401 }), NOW, LIMITS), { ok: false, reason: 'communication lost' });
  assert.equal(deviceHealth(null, NOW, LIMITS), { ok: false, reason: 'never checked in' });
});

test('current back: a check-in after the trip with None or Current Reset', () => {
  assert.ok(currentBack(NOW, { date: NOW + 1, actualOngoingFault: 0, expectedS: null }));
  assert.ok(currentBack(NOW, { date: NOW + 1, actualOngoingFault: 10, expectedS: null }));
  assert.not.ok(currentBack(NOW, { date: NOW + 1, actualOngoingFault: 4, expectedS: null }), 'still faulted');
  assert.not.ok(currentBack(NOW, { date: NOW - 1, actualOngoingFault: 0, expectedS: null }), 'the check-in before the trip');
  assert.not.ok(currentBack(NOW, null));
});

const SECTION: FaultedSection = { phase: 'ABC', from: { imei: 'T1', name: null }, to: [{ imei: 'T2', name: null }], spans: [], label: 'below T1' };
const MOVED: FaultedSection = { ...SECTION, from: { imei: 'T2', name: null }, to: [], label: 'below T2' };
const open: IncidentState = { status: 'open', kind: 'permanent', sections: [], locatedAt: null, restoredAt: null, closedAt: null };
const facts = (over: Partial<IncidentFacts>): IncidentFacts => ({ kind: 'permanent', sections: [], restored: false, joined: 0, now: NOW, windowMs: W, ...over });

// [name, before, facts, expected status, timeline]
const lifeRows: [string, IncidentState, Partial<IncidentFacts>, IncidentState['status'], string[]][] = [
  ['no topology: stays open', open, {}, 'open', []],
  ['a section: located', open, { sections: [SECTION] }, 'located', ['located']],
  ['a later trip moves the section', { ...open, status: 'located', sections: [SECTION], locatedAt: NOW - 1 }, { sections: [MOVED], joined: 1 }, 'located', ['section changed']],
  ['momentary: located and restored at once', open, { kind: 'momentary', sections: [SECTION] }, 'restored', ['located', 'restored']],
  ['permanent: restored when current is back', { ...open, status: 'located', sections: [SECTION], locatedAt: NOW - 1 }, { sections: [SECTION], restored: true }, 'restored', ['restored']],
  ['not restored before current is back', { ...open, status: 'located', sections: [SECTION], locatedAt: NOW - 1 }, { sections: [SECTION] }, 'located', []],
  ['restored: closed one window later', { ...open, status: 'restored', sections: [SECTION], locatedAt: NOW - W - 2, restoredAt: NOW - W }, { sections: [SECTION], restored: true }, 'closed', ['closed']],
  ['restored: still within the window', { ...open, status: 'restored', sections: [SECTION], locatedAt: NOW - 2, restoredAt: NOW - 1 }, { sections: [SECTION], restored: true }, 'restored', []],
  ['restored, trips again: located again', { ...open, status: 'restored', sections: [SECTION], locatedAt: NOW - 2, restoredAt: NOW - 1 }, { sections: [SECTION], joined: 1 }, 'located', ['tripped again']],
  ['without topology: open -> restored', open, { restored: true }, 'restored', ['restored']],
  ['closed stays closed', { ...open, status: 'closed', closedAt: NOW - 1 }, { joined: 1, sections: [SECTION] }, 'closed', []],
];
for (const [name, before, f, status, timeline] of lifeRows) {
  test(`lifecycle: ${name}`, () => {
    const step = advanceIncident(before, facts(f));
    assert.is(step.state.status, status);
    assert.equal(step.timeline.map((t) => t.what), timeline);
    if (timeline.includes('located')) assert.is(step.state.locatedAt, NOW);
    if (timeline.includes('restored')) assert.is(step.state.restoredAt, NOW);
    if (timeline.includes('closed')) assert.is(step.state.closedAt, NOW);
  });
}

test('sections read back with their keys in another order (jsonb) are the same sections', () => {
  const reordered = JSON.parse(JSON.stringify({ label: SECTION.label, spans: [], to: SECTION.to, from: SECTION.from, phase: SECTION.phase })) as FaultedSection;
  const step = advanceIncident({ ...open, status: 'located', sections: [reordered], locatedAt: NOW - 1 }, facts({ sections: [SECTION] }));
  assert.equal(step.timeline, []);
});

test.run();
