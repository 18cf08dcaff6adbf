// The fault-compute handler production runs (spec 6.1 steps 4, 5, 7; 3.2 and 3.4), table-tested: one row per
// rule, from the device's held state (its recent records and stored standard events) and one message.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { candidatesWanted, computeMessage } from '../../stages/fault-compute/handler.js';
import type { FaultState } from '../../stages/fault-compute/state.js';
import type { ComputedCheckIn } from '../../schemas/avro/values.js';
import { deduped, enriched, ev, MODEL_MAP } from './handler-messages.js';

const RULES = { modelMap: MODEL_MAP, lowCurrentA: 1.0 };
const record = (date: string, over: Partial<FaultState['records'][number]> = {}) => ({ date, model: 'FCI-3000', AverageCurrent1m: 120, ActualOngoingFault: 0, ...over });
const state = (over: Partial<FaultState> = {}): FaultState => ({ records: [], allRecords: true, events: [], allEvents: true, ...over });

const rows: [string, Parameters<typeof enriched>[0], FaultState, (v: ComputedCheckIn) => void][] = [
  ['3.2: no events, device reports NONE -> 0; no previous record -> previousActualOngoingFault null', {}, state(), (v) => {
    assert.equal([v.ActualOngoingFault, v.ReportedOngoingFault, v.previousActualOngoingFault], [0, 0, null]);
  }],
  ['3.2 row 1: PERMANENT after a previous record with very low current -> 11 (reported 4 kept for audit)', { device: { Ongoing_fault: 4 } },
    state({ records: [record('2026-11-20T13:45:00.000Z', { AverageCurrent1m: 0.4 })] }), (v) => {
      assert.equal([v.ActualOngoingFault, v.ReportedOngoingFault], [11, 4]);
    }],
  ['3.2 row 1 uses the previous record by device time: a later-dated record does not count', { device: { Ongoing_fault: 4 } },
    state({ records: [record('2026-11-20T13:45:00.000Z', { AverageCurrent1m: 120 }), record('2026-11-20T14:30:00.000Z', { AverageCurrent1m: 0.1 })] }), (v) => {
      assert.is(v.ActualOngoingFault, 4);
    }],
  ['3.2 row 2: NONE + a Current Reset event -> 10', { events: [ev(55, '13:59:00', 'Current Reset')] }, state(), (v) => assert.is(v.ActualOngoingFault, 10)],
  ['3.2 row 3: NONE + an Overcurrent event -> 6', { events: [ev(7, '13:59:00', 'Overcurrent')] }, state(), (v) => assert.is(v.ActualOngoingFault, 6)],
  ['3.2 row 4: DM1 device NONE + FAULT_INITIAL -> 4', { dm1: true, events: [ev(3, '13:59:00', 'FAULT_INITIAL', { PhaseAEvent: 'F' })] }, state(), (v) => assert.is(v.ActualOngoingFault, 4)],
  ['6.1 step 4: previousActualOngoingFault is the previous record\'s', {}, state({ records: [record('2026-11-20T13:45:00.000Z', { ActualOngoingFault: 4 })] }), (v) => {
    assert.is(v.previousActualOngoingFault, 4);
  }],
  ['6.1 step 5: a model different from the previous record\'s raises the alert', { device: { model: 'FCI-2000' } }, state({ records: [record('2026-11-20T13:45:00.000Z')] }), (v) => {
    assert.equal(v.alert, { oldModel: 'FCI-3000', newModel: 'FCI-2000' });
  }],
  ['6.1 step 5: the same model raises none', {}, state({ records: [record('2026-11-20T13:45:00.000Z')] }), (v) => assert.is(v.alert, null)],
  ['3.4: a Fault <50 followed within 6 min by a TFault in the same message moves back 30 s', { events: [ev(200, '13:50:00', 'Fault <50'), ev(201, '13:53:00', 'TFault')] }, state(), (v) => {
    assert.equal(v.shifts, [{ EventID: 200, fromTimestamp: '2026-11-20T13:50:00.000Z', toTimestamp: '2026-11-20T13:49:30.000Z' }]);
  }],
  ['3.4: a stored Fault <50 is moved when the PFault arrives in a later message', { events: [ev(201, '13:53:00', 'PFault')] },
    state({ events: [{ EventID: 200, EventTimestamp: '2026-11-20T13:50:00.000Z', EventType: 'Fault <50', shifted: false }] }), (v) => {
      assert.equal(v.shifts, [{ EventID: 200, fromTimestamp: '2026-11-20T13:50:00.000Z', toTimestamp: '2026-11-20T13:49:30.000Z' }]);
    }],
  ['3.4: never twice: an already shifted Fault <50 stays', { events: [ev(201, '13:53:00', 'PFault')] },
    state({ events: [{ EventID: 200, EventTimestamp: '2026-11-20T13:50:00.000Z', EventType: 'Fault <50', shifted: true }] }), (v) => assert.equal(v.shifts, [])],
  ['3.4: more than 6 min apart: no move', { events: [ev(200, '13:50:00', 'Fault <50'), ev(201, '13:56:01', 'TFault')] }, state(), (v) => assert.equal(v.shifts, [])],
];

for (const [name, change, held, check] of rows) {
  test(name, () => check(computeMessage(deduped(enriched(change)), held, RULES).value));
}

test('the next state holds the record and marks the moved event as shifted', () => {
  const { state: next } = computeMessage(deduped(enriched({ events: [ev(200, '13:50:00', 'Fault <50'), ev(201, '13:53:00', 'TFault')] })), state(), RULES);
  assert.equal(next.records.map((r) => [r.date, r.ActualOngoingFault]), [['2026-11-20T14:00:00.000Z', 0]]);
  assert.equal(next.events.map((e) => [e.EventID, e.shifted]), [[200, true], [201, false]]);
});

test('stored shift candidates are read for a check-in only when the held ones were cut and its window reaches back to them', () => {
  const held = [{ EventID: 9, EventTimestamp: '2026-11-20T13:50:00.000Z', EventType: 'SOTF', shifted: false }];
  const tfault = (time: string) => enriched({ events: [ev(1, time, 'TFault')] }).checkIn;
  assert.is(candidatesWanted(state({ events: held }), tfault('13:52:00')), null, 'every candidate held');
  assert.is(candidatesWanted(state({ events: held, allEvents: false }), tfault('13:57:00')), null, 'its window starts after the oldest held');
  assert.is(candidatesWanted(state({ events: held, allEvents: false }), enriched({ events: [ev(1, '13:52:00', 'Overcurrent')] }).checkIn), null, 'no shift-type event');
  assert.equal(candidatesWanted(state({ events: held, allEvents: false }), tfault('13:52:00')), [Date.parse('2026-11-20T13:46:00Z'), Date.parse('2026-11-20T13:58:00Z')], 'six minutes either side');
});

test.run();
