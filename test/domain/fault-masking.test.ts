// The mask of spec 3.5 and its principle (docs/decisions.md#masking), field by field of MASKED_FIELDS, on
// every answer shape the device-records interface has, and the queries a masked caller may not send.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FAULT_EVENT_TYPES } from '../../domain/fault-events.js';
import { MASKED_FIELDS, maskedQueryProblem, maskFaultClass } from '../../domain/fault-masking.js';

const names = { faultTypeNone: 'No fault' };
const mask = (v: unknown) => maskFaultClass(v, names);

test('every fault event type reads Fault, its class-only spec 3.4 fields null, cleared values null', () => {
  for (const EventType of FAULT_EVENT_TYPES) {
    const masked = mask({ EventType, PrefaultCurrent: 140, FaultCurrent: 300, RecoverCurrent: '', PermanentFaultResetCurrentThreshold: 70, PostEventRef: 'Load 15s After Event (A)' });
    assert.equal(masked, { EventType: 'Fault', PrefaultCurrent: 140, FaultCurrent: 300, RecoverCurrent: null, PermanentFaultResetCurrentThreshold: null, PostEventRef: null }, EventType);
  }
});

test('a type that names no fault keeps its name; the class-only fields are still null', () => {
  assert.equal(mask({ EventType: 'Current Reset', PrefaultCurrent: 96, FaultCurrent: '', PermanentFaultResetCurrentThreshold: 48, PostEventRef: 'Reset Current (A)' }),
    { EventType: 'Current Reset', PrefaultCurrent: 96, FaultCurrent: '', PermanentFaultResetCurrentThreshold: null, PostEventRef: null });
  assert.equal(mask({ EventType: 'Model Change', oldModel: 'A', newModel: 'B' }), { EventType: 'Model Change', oldModel: 'A', newModel: 'B' });
});

test('Ongoing_fault, ActualOngoingFault, FaultType: None for code 0 (FaultType by its configured name), else Fault', () => {
  assert.equal(mask({ Ongoing_fault: 'Permanent', ActualOngoingFault: 'None', FaultType: 'Permanent', State: 'Normal' }),
    { Ongoing_fault: 'Fault', ActualOngoingFault: 'None', FaultType: 'Fault', State: 'Normal' });
  assert.equal(mask({ FaultType: 'No fault' }), { FaultType: 'None' });
  assert.equal(mask({ FaultType: 'Unknown (9)' }), { FaultType: 'Fault' });
  assert.equal(mask({ FaultType: null }), { FaultType: null });
});

test('every answer shape: pages, lists, nested latestRecord, and count buckets merged', () => {
  const page = { data: [{ FaultType: 'SOTF', EventType: 'PFault' }], page: 0, limit: 50, total: 1 };
  assert.equal(mask(page), { data: [{ FaultType: 'Fault', EventType: 'Fault' }], page: 0, limit: 50, total: 1 });
  assert.equal(mask({ IMEINumber: '1', groups: ['a'], latestRecord: { Ongoing_fault: 'Temporary', FaultType: 'Temporary' } }),
    { IMEINumber: '1', groups: ['a'], latestRecord: { Ongoing_fault: 'Fault', FaultType: 'Fault' } });
  assert.equal(mask({ byActualOngoingFault: [{ ActualOngoingFault: 'None', count: 1 }, { ActualOngoingFault: 'Permanent', count: 2 }, { ActualOngoingFault: 'Temporary', count: 3 }] }),
    { byActualOngoingFault: [{ ActualOngoingFault: 'None', count: 1 }, { ActualOngoingFault: 'Fault', count: 5 }] });
});

test('MASKED_FIELDS lists every field the mask changes', () => {
  const before = { Ongoing_fault: 'Temporary', ActualOngoingFault: 'Permanent', FaultType: 'SOTF', EventType: 'SOTF', PermanentFaultResetCurrentThreshold: 9, PostEventRef: 'x', FaultCurrent: '', RecoverCurrent: '', State: 'Fault', PrefaultCurrent: 3 };
  const after = mask(before) as Record<string, unknown>;
  const changed = Object.keys(before).filter((k) => after[k] !== before[k as keyof typeof before]);
  assert.equal(changed.sort(), Object.keys(MASKED_FIELDS).sort());
});

test('queries: sort keys and filters that would reveal the class are refused, None / Fault pass', () => {
  const q = (sort: string[], filters: [string, string, (string | number)[]][]) => ({ sort: sort.map((field) => ({ field })), filters: filters.map(([field, op, values]) => ({ field, op, values })) });
  for (const field of ['EventType', 'FaultType', 'ActualOngoingFault', 'Ongoing_fault']) assert.is(maskedQueryProblem(q([field], []))?.parameter, 'sortBy', field);
  assert.is(maskedQueryProblem(q(['date'], [])), null);
  for (const bad of [['ActualOngoingFault', 'eq', [4]], ['FaultType', 'eq', ['Permanent']], ['Ongoing_fault', 'in', ['Fault', 'Temporary']], ['EventType', 'eq', ['pfault']], ['EventType', 'contains', ['F']], ['EventType', 'in', ['Fault', 'SOTF']]] as const) {
    const p = maskedQueryProblem(q([], [[bad[0], bad[1], [...bad[2]]]]));
    assert.is(p?.parameter, `filterBy[${bad[0]}]`, JSON.stringify(bad));
    assert.match(p!.message, 'masks fault details');
  }
  for (const good of [['ActualOngoingFault', 'eq', ['Fault']], ['FaultType', 'ne', ['none']], ['EventType', 'eq', ['Fault']], ['EventType', 'in', ['Fault', 'Model Change']], ['IMEINumber', 'contains', ['86']]] as const) {
    assert.is(maskedQueryProblem(q([], [[good[0], good[1], [...good[2]]]])), null, JSON.stringify(good));
  }
});

test.run();
