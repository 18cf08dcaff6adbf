import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  FAULT_SHIFT_MS, FAULT_SHIFT_WINDOW_MS, planFaultShifts, type ShiftableEvent, type StoredShiftCandidate,
} from '../../domain/fault-shift.js';
import { normaliseUtc } from '../../domain/utc-timestamp.js';
import { at, fixtureCheckIn } from './builders.js';
import { expectedFor } from './fixtures.js';

const n = (EventID: number, time: string, EventType: string): ShiftableEvent => ({ EventID, EventTimestamp: at(time), EventType });
const s = (EventID: number, time: string, EventType: string, shifted = false): StoredShiftCandidate => ({ ...n(EventID, time, EventType), shifted });
const LT50 = 'Fault <50';

// [name, new events, stored events, expected shifts as `EventID@original->new(stored|new)`]
type Row = [string, ShiftableEvent[], StoredShiftCandidate[], string[]];
const rows: Row[] = [
  // spec 3.4: Fault <50 followed by SOTF, PFault or TFault within 6 minutes -> back 30 s
  ['followed by TFault 3 min later (fixture 007 shape)', [n(201, '14:25:00', LT50), n(202, '14:28:00', 'TFault')], [], ['201@14:25:00.000->14:24:30.000(new)']],
  ['followed by SOTF', [n(1, '14:00:00', LT50), n(2, '14:01:00', 'SOTF')], [], ['1@14:00:00.000->13:59:30.000(new)']],
  ['followed by PFault', [n(1, '14:00:00', LT50), n(2, '14:01:00', 'PFault')], [], ['1@14:00:00.000->13:59:30.000(new)']],
  ['followed by Fault Like: no move', [n(1, '14:00:00', LT50), n(2, '14:01:00', 'Fault Like')], [], []],
  ['followed by Overcurrent: no move', [n(1, '14:00:00', LT50), n(2, '14:01:00', 'Overcurrent')], [], []],
  ['followed by another Fault <50: no move', [n(1, '14:00:00', LT50), n(2, '14:01:00', LT50)], [], []],
  ['Fault <50 alone: no move', [n(1, '14:00:00', LT50)], [], []],
  // window boundary (docs/decisions.md: exactly 6:00 applies, 6:00.001 does not)
  ['TFault at +6:00.000: moves', [n(1, '14:00:00', LT50), n(2, '14:06:00', 'TFault')], [], ['1@14:00:00.000->13:59:30.000(new)']],
  ['TFault at +6:00.001: no move', [n(1, '14:00:00', LT50), n(2, '14:06:00.001', 'TFault')], [], []],
  ['TFault at +5:59.999: moves', [n(1, '14:00:00', LT50), n(2, '14:05:59.999', 'TFault')], [], ['1@14:00:00.000->13:59:30.000(new)']],
  // "followed by": the trigger must be later
  ['TFault before the Fault <50: no move', [n(2, '13:59:00', 'TFault'), n(3, '14:00:00', LT50)], [], []],
  ['same timestamp, trigger has the higher EventID: moves', [n(1, '14:00:00', LT50), n(2, '14:00:00', 'SOTF')], [], ['1@14:00:00.000->13:59:30.000(new)']],
  ['same timestamp, trigger has the lower EventID: no move', [n(1, '14:00:00', 'SOTF'), n(2, '14:00:00', LT50)], [], []],
  // across messages: the Fault <50 was stored with an earlier message
  ['stored Fault <50, new TFault: stored event moves', [n(202, '14:28:00', 'TFault')], [s(201, '14:25:00', LT50)], ['201@14:25:00.000->14:24:30.000(stored)']],
  ['stored Fault <50 already moved: never again', [n(202, '14:28:00', 'TFault')], [s(201, '14:24:30', LT50, true)], []],
  ['stored Fault <50 too old: no move', [n(202, '14:31:00.001', 'TFault')], [s(201, '14:25:00', LT50)], []],
  ['stored TFault, new Fault <50 before it (late delivery): new event moves', [n(201, '14:25:00', LT50)], [s(202, '14:28:00', 'TFault')], ['201@14:25:00.000->14:24:30.000(new)']],
  ['both stored: decided before, nothing to do', [n(300, '15:00:00', 'TFault')], [s(201, '14:25:00', LT50), s(202, '14:28:00', 'TFault')], []],
  ['two Fault <50 before one TFault: both move, once each', [n(1, '14:00:00', LT50), n(2, '14:02:00', LT50), n(3, '14:05:00', 'PFault')], [], ['1@14:00:00.000->13:59:30.000(new)', '2@14:02:00.000->14:01:30.000(new)']],
  ['one Fault <50 before two triggers: one move', [n(1, '14:00:00', LT50), n(2, '14:01:00', 'TFault'), n(3, '14:02:00', 'PFault')], [], ['1@14:00:00.000->13:59:30.000(new)']],
  ['event type is exact ("Fault<50")', [n(1, '14:00:00', 'Fault<50'), n(2, '14:01:00', 'TFault')], [], []],
];

const short = (iso: string) => iso.slice(11, 23);
for (const [name, fresh, stored, expected] of rows) {
  test(name, () => {
    const shifts = planFaultShifts(fresh, stored);
    assert.equal(shifts.map((x) => `${x.EventID}@${short(x.fromTimestamp)}->${short(x.toTimestamp)}(${x.stored ? 'stored' : 'new'})`), expected);
  });
}

test('constants: 30 s back, 6 min window', () => {
  assert.equal([FAULT_SHIFT_MS, FAULT_SHIFT_WINDOW_MS], [30_000, 360_000]);
});

test('fixture 007 -> expected.json shifted', () => {
  const shifts = planFaultShifts(fixtureCheckIn('007-fault-lt50-then-tfault.json').events, []);
  const want = expectedFor('007-fault-lt50-then-tfault.json').shifted!;
  assert.is(shifts.length, 1);
  assert.is(shifts[0]?.EventID, want.EventID);
  assert.is(shifts[0]?.toTimestamp, normaliseUtc(want.EventTimestamp));
});

test.run();
