import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  permanentFaultResetCurrentThreshold, presentEvent, PFAULT_THRESHOLD_MIN, type PresentableEvent,
} from '../../domain/event-presentation.js';
import { event, fixtureCheckIn } from './builders.js';
import { expectedFor } from './fixtures.js';

const currents = { PrefaultCurrent: 40, FaultCurrent: 400, RecoverCurrent: 12 };
type Out = Record<string, unknown>;

// spec 3.4, one row per table row (plus the types it leaves alone): [name, event, expected changed fields]
const rows: [string, PresentableEvent, Out][] = [
  // PFault: PermanentFaultResetCurrentThreshold = ceil(PrefaultCurrent / 2), minimum 9
  ['PFault: threshold ceil(40 / 2) = 20', event(1, '14:00:00', 'PFault', currents),
    { PrefaultCurrent: 40, FaultCurrent: 400, RecoverCurrent: 12, PermanentFaultResetCurrentThreshold: 20, PostEventRef: null }],
  // Current Reset: PrefaultCurrent takes FaultCurrent; FaultCurrent cleared; PostEventRef; threshold too
  ['Current Reset: Prefault <- Fault, Fault cleared, PostEventRef, threshold from the reset current', event(1, '14:00:00', 'Current Reset', currents),
    { PrefaultCurrent: 400, FaultCurrent: '', RecoverCurrent: 12, PermanentFaultResetCurrentThreshold: 200, PostEventRef: 'Reset Current (A)' }],
  // SOTF: RecoverCurrent cleared
  ['SOTF: RecoverCurrent cleared', event(1, '14:00:00', 'SOTF', currents),
    { PrefaultCurrent: 40, FaultCurrent: 400, RecoverCurrent: '', PermanentFaultResetCurrentThreshold: null, PostEventRef: null }],
  // Fault Like, Fault <50: PostEventRef
  ['Fault Like: PostEventRef', event(1, '14:00:00', 'Fault Like', currents),
    { PrefaultCurrent: 40, FaultCurrent: 400, RecoverCurrent: 12, PermanentFaultResetCurrentThreshold: null, PostEventRef: 'Load 15s After Event (A)' }],
  ['Fault <50: PostEventRef', event(1, '14:00:00', 'Fault <50', currents),
    { PrefaultCurrent: 40, FaultCurrent: 400, RecoverCurrent: 12, PermanentFaultResetCurrentThreshold: null, PostEventRef: 'Load 15s After Event (A)' }],
  // not in the table: unchanged, both added fields null
  ['TFault: unchanged', event(1, '14:00:00', 'TFault', currents),
    { PrefaultCurrent: 40, FaultCurrent: 400, RecoverCurrent: 12, PermanentFaultResetCurrentThreshold: null, PostEventRef: null }],
  ['Overcurrent: unchanged', event(1, '14:00:00', 'Overcurrent', currents),
    { PrefaultCurrent: 40, FaultCurrent: 400, RecoverCurrent: 12, PermanentFaultResetCurrentThreshold: null, PostEventRef: null }],
  ['PFault without PrefaultCurrent: threshold null', event(1, '14:00:00', 'PFault'),
    { PrefaultCurrent: null, FaultCurrent: null, RecoverCurrent: null, PermanentFaultResetCurrentThreshold: null, PostEventRef: null }],
  ['Current Reset without FaultCurrent', event(1, '14:00:00', 'Current Reset', { PrefaultCurrent: 5 }),
    { PrefaultCurrent: null, FaultCurrent: '', RecoverCurrent: null, PermanentFaultResetCurrentThreshold: null, PostEventRef: 'Reset Current (A)' }],
];
const FIELDS = ['PrefaultCurrent', 'FaultCurrent', 'RecoverCurrent', 'PermanentFaultResetCurrentThreshold', 'PostEventRef'];
for (const [name, input, expected] of rows) {
  test(name, () => {
    const out = presentEvent(input) as unknown as Out;
    assert.equal(Object.fromEntries(FIELDS.map((f) => [f, out[f]])), expected);
    assert.is(out.EventType, input.EventType);
  });
}

// spec 3.4 / 8: threshold boundary rows [PrefaultCurrent, threshold]
const thresholds: [number | null, number | null][] = [
  [16, 9], // ceil(8) = 8 -> minimum 9
  [17, 9], // ceil(8.5) = 9 -> exactly the minimum
  [18, 9], // 9 exactly
  [18.2, 10], // ceil(9.1)
  [19, 10], // ceil(9.5)
  [0, 9],
  [5, 9], // fixture 010
  [140, 70], // fixture 002
  [-20, 9],
  [null, null],
];
for (const [prefault, threshold] of thresholds) {
  test(`threshold(${prefault}) = ${threshold}`, () => {
    assert.is(permanentFaultResetCurrentThreshold(prefault), threshold);
  });
}

test('minimum is 9', () => {
  assert.is(PFAULT_THRESHOLD_MIN, 9);
});

test('the input event is not changed', () => {
  const input = event(1, '14:00:00', 'Current Reset', currents);
  presentEvent(input);
  assert.equal([input.PrefaultCurrent, input.FaultCurrent], [40, 400]);
});

// expected.json rows with API fields
for (const file of ['002-permanent-fault.json', '004-current-reset.json', '007-fault-lt50-then-tfault.json', '010-permanent-after-low-current.json']) {
  test(`fixture ${file} -> expected.json API fields`, () => {
    const want = expectedFor(file);
    const out = presentEvent(fixtureCheckIn(file).events[0]!);
    if (want.PermanentFaultResetCurrentThreshold !== undefined) assert.is(out.PermanentFaultResetCurrentThreshold, want.PermanentFaultResetCurrentThreshold);
    if (want.PrefaultCurrent_api !== undefined) assert.is(out.PrefaultCurrent, want.PrefaultCurrent_api);
    if (want.FaultCurrent_api !== undefined) assert.is(out.FaultCurrent, want.FaultCurrent_api);
    if (want.PostEventRef !== undefined) assert.is(out.PostEventRef, want.PostEventRef);
  });
}

test.run();
