import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DeviceEvent } from '../../domain/checkin.js';
import { computeActualOngoingFault, DEFAULT_LOW_CURRENT_A, type OngoingFaultRule } from '../../domain/ongoing-fault.js';
import { filterNewEvents } from '../../domain/event-filter.js';
import { event, fixtureCheckIn } from './builders.js';
import { expectedFor } from './fixtures.js';

const CR = (id: number, t: string) => event(id, t, 'Current Reset');
const OC = (id: number, t: string) => event(id, t, 'Overcurrent');
const FI = (id: number, t: string) => event(id, t, 'FAULT_INITIAL');
const low = { AverageCurrent1m: 0.4 };
const normal = { AverageCurrent1m: 120.5 };

// [name, reported, dm1, new events, previous record, lowCurrentA, expected code, expected rule, trigger EventID]
type Row = [string, number, boolean, DeviceEvent[], { AverageCurrent1m: number | null } | null, number | undefined, number, OngoingFaultRule | null, number | null];
const rows: Row[] = [
  // spec 3.2 row 1: device reports PERMANENT, previous current readings very low -> PROBABLE_TEMP_FAULT (11)
  ['row 1: PERMANENT + previous 0.4 A -> 11', 4, false, [], low, undefined, 11, 'PREVIOUS_LOW_CURRENT', null],
  ['row 1 boundary: previous exactly 1.0 A (<=) -> 11', 4, false, [], { AverageCurrent1m: 1.0 }, undefined, 11, 'PREVIOUS_LOW_CURRENT', null],
  ['row 1 boundary: previous 1.0001 A -> stays 4', 4, false, [], { AverageCurrent1m: 1.0001 }, undefined, 4, null, null],
  ['row 1: previous 0 A -> 11', 4, false, [], { AverageCurrent1m: 0 }, undefined, 11, 'PREVIOUS_LOW_CURRENT', null],
  ['row 1: previous normal current -> stays 4', 4, false, [], normal, undefined, 4, null, null],
  ['row 1: no previous record -> stays 4', 4, false, [], null, undefined, 4, null, null],
  ['row 1: previous record without AverageCurrent1m -> stays 4', 4, false, [], { AverageCurrent1m: null }, undefined, 4, null, null],
  ['row 1: lowCurrentA option 5 A, previous 4.9 A -> 11', 4, false, [], { AverageCurrent1m: 4.9 }, 5, 11, 'PREVIOUS_LOW_CURRENT', null],
  ['row 1: lowCurrentA option 0.1 A, previous 0.4 A -> stays 4', 4, false, [], low, 0.1, 4, null, null],
  ['row 1: applies to DM1 devices too', 4, true, [], low, undefined, 11, 'PREVIOUS_LOW_CURRENT', null],
  ['row 1: PERMANENT_ALT (5) is not PERMANENT', 5, false, [], low, undefined, 5, null, null],
  ['row 1: reported NONE with low previous -> stays 0', 0, false, [], low, undefined, 0, null, null],
  // spec 3.2 row 2: device reports NONE, a Current Reset event occurred -> CURRENT_RESET (10)
  ['row 2: NONE + Current Reset -> 10', 0, false, [CR(55, '14:09:00')], normal, undefined, 10, 'CURRENT_RESET_EVENT', 55],
  ['row 2: reported TEMPORARY + Current Reset -> stays 2', 2, false, [CR(55, '14:09:00')], normal, undefined, 2, null, null],
  ['row 2: event type is exact ("current reset")', 0, false, [event(55, '14:09:00', 'current reset')], normal, undefined, 0, null, null],
  // spec 3.2 row 3: device reports NONE, an Overcurrent event occurred -> OVER_CURRENT (6)
  ['row 3: NONE + Overcurrent -> 6', 0, false, [OC(7, '14:14:30')], normal, undefined, 6, 'OVERCURRENT_EVENT', 7],
  ['row 3: reported PERMANENT + Overcurrent -> stays 4', 4, false, [OC(7, '14:14:30')], normal, undefined, 4, null, null],
  ['row 3: on a DM1 device too', 0, true, [OC(7, '14:14:30')], normal, undefined, 6, 'OVERCURRENT_EVENT', 7],
  // spec 3.2 row 4: DM1 device reports NONE, a FAULT_INITIAL event occurred -> PERMANENT (4)
  ['row 4: DM1 NONE + FAULT_INITIAL -> 4', 0, true, [FI(3, '14:19:40')], null, undefined, 4, 'DM1_FAULT_INITIAL_EVENT', 3],
  ['row 4: not a DM1 device -> stays 0', 0, false, [FI(3, '14:19:40')], null, undefined, 0, null, null],
  ['row 4: DM1 reporting TEMPORARY -> stays 2', 2, true, [FI(3, '14:19:40')], null, undefined, 2, null, null],
  // no row applies
  ['no events, NONE -> 0', 0, false, [], null, undefined, 0, null, null],
  ['other event types do not transition', 0, false, [event(9, '14:00:00', 'PFault'), event(10, '14:01:00', 'TFault')], null, undefined, 0, null, null],
  ['unknown reported code is kept', 77, false, [CR(1, '14:00:00')], low, undefined, 77, null, null],
  // precedence (docs/decisions.md): the row of the latest new event wins, by EventTimestamp, then EventID
  ['precedence: Overcurrent later than Current Reset -> 6', 0, false, [CR(10, '14:00:00'), OC(11, '14:01:00')], null, undefined, 6, 'OVERCURRENT_EVENT', 11],
  ['precedence: Current Reset later -> 10', 0, false, [OC(10, '14:00:00'), CR(11, '14:01:00')], null, undefined, 10, 'CURRENT_RESET_EVENT', 11],
  ['precedence: by timestamp, not message order', 0, false, [CR(11, '14:05:00'), OC(10, '14:01:00')], null, undefined, 10, 'CURRENT_RESET_EVENT', 11],
  ['precedence: same timestamp, higher EventID wins', 0, false, [OC(21, '14:00:00'), CR(20, '14:00:00')], null, undefined, 6, 'OVERCURRENT_EVENT', 21],
  ['precedence: same timestamp, higher EventID wins (other way)', 0, false, [CR(21, '14:00:00'), OC(20, '14:00:00')], null, undefined, 10, 'CURRENT_RESET_EVENT', 21],
  ['precedence: DM1 FAULT_INITIAL latest -> 4', 0, true, [OC(5, '14:00:00'), FI(6, '14:00:01')], null, undefined, 4, 'DM1_FAULT_INITIAL_EVENT', 6],
  ['precedence: DM1 Overcurrent after FAULT_INITIAL -> 6', 0, true, [FI(5, '14:00:00'), OC(6, '14:00:00.001')], null, undefined, 6, 'OVERCURRENT_EVENT', 6],
];

for (const [name, reported, dm1, newEvents, previous, lowCurrentA, code, rule, trigger] of rows) {
  test(name, () => {
    const d = computeActualOngoingFault({ reported, dm1, newEvents, previous, lowCurrentA });
    assert.equal([d.code, d.rule, d.trigger?.EventID ?? null], [code, rule, trigger]);
  });
}

test('default threshold is 1.0 A', () => {
  assert.is(DEFAULT_LOW_CURRENT_A, 1.0);
});

test('only new events count: a resent Current Reset that the filter drops does not override', () => {
  const resent = [CR(55, '14:09:00')];
  const { kept } = filterNewEvents(resent, { lastEventId: 55, lastEventTimestamp: '2026-11-20T14:09:00.000Z' });
  assert.is(computeActualOngoingFault({ reported: 0, dm1: false, newEvents: kept, previous: null }).code, 0);
});

// Fixtures: each message alone, with the previous record fixture 009 -> 010 needs.
const fixtureRows: [string, { AverageCurrent1m: number | null } | null][] = [
  ['001-plain-checkin.json', null],
  ['002-permanent-fault.json', null],
  ['004-current-reset.json', null],
  ['005-overcurrent.json', null],
  ['006-dm1-fault-initial.json', null],
  ['009-low-current-before.json', fixtureCheckIn('001-plain-checkin.json').device_data],
  ['010-permanent-after-low-current.json', fixtureCheckIn('009-low-current-before.json').device_data],
];
for (const [file, previous] of fixtureRows) {
  test(`fixture ${file} -> expected.json ActualOngoingFault`, () => {
    const c = fixtureCheckIn(file);
    const d = computeActualOngoingFault({ reported: c.device_data.Ongoing_fault, dm1: c.dm1_device, newEvents: c.events, previous });
    assert.is(d.code, expectedFor(file).ActualOngoingFault);
  });
}

test('fixture 010 without 009 before it stays PERMANENT', () => {
  const c = fixtureCheckIn('010-permanent-after-low-current.json');
  assert.is(computeActualOngoingFault({ reported: 4, dm1: false, newEvents: c.events, previous: null }).code, 4);
});

test.run();
