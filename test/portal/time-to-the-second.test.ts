// The portal's one time formatter (portal/src/time.ts) to the second, the API's seconds format read back,
// whose clock an incident's steps are read from, and a test fault's status once its time has passed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatDisplayTimeSeconds } from '../../domain/display-time.js';
import { incidentSteps } from '../../portal/src/incident-steps.js';
import { testFaultStatus, SETTLE_MS } from '../../portal/src/test-fault-status.js';
import { displayTimeMs, formatSecondTime, isoToSecond } from '../../portal/src/time.js';
import type { TestFault } from '../../portal/src/api/types.js';

const CHICAGO = 'America/Chicago';

test('times to the second in the user\'s zone, and the API\'s seconds format read back to the same instant', () => {
  const at = Date.UTC(2026, 10, 22, 21, 4, 37);
  assert.is(formatSecondTime(at, CHICAGO), '2026-Nov-22 03:04:37 PM');
  assert.is(isoToSecond(new Date(at).toISOString(), CHICAGO), '2026-Nov-22 03:04:37 PM');
  assert.is(isoToSecond(null, CHICAGO), '—');
  assert.is(formatDisplayTimeSeconds(at, CHICAGO), '2026-Nov-22 03:04:37 PM', 'the API writes what the portal writes');
  assert.is(displayTimeMs('2026-Nov-22 03:04:37 PM', CHICAGO), at);
  // Two check-ins of one minute are two points, not one (no zigzag on the chart).
  assert.is.not(displayTimeMs(formatDisplayTimeSeconds(at + 20_000, CHICAGO), CHICAGO), displayTimeMs(formatDisplayTimeSeconds(at, CHICAGO), CHICAGO));
  assert.is(displayTimeMs('2026-Nov-22 03:04 PM', CHICAGO), Date.UTC(2026, 10, 22, 21, 4), 'the minute format still reads');
});

test('an incident\'s steps: the first trip first (device clock), then the worker\'s in recorded order (service clock)', () => {
  // A device clock 90 s ahead: sorted by time, "restored" would come before the first trip.
  const { steps, deviceAheadMs } = incidentSteps({
    firstTripAt: '2026-11-22T21:05:30Z',
    timeline: [{ at: '2026-11-22T21:04:05Z', what: 'opened' }, { at: '2026-11-22T21:04:10Z', what: 'located' }, { at: '2026-11-22T21:05:00Z', what: 'restored' }],
  });
  assert.equal(steps.map((s) => `${s.clock} ${s.what}`), ['device first trip', 'service opened', 'service located', 'service restored']);
  assert.is(deviceAheadMs, 85_000);
  assert.is(incidentSteps({ firstTripAt: '2026-11-22T21:04:00Z', timeline: [{ at: '2026-11-22T21:04:05Z', what: 'opened' }] }).deviceAheadMs, 0);
});

const fault = (over: Partial<TestFault>): TestFault => ({
  id: 1, IMEINumber: '861000000000000', startedBy: 'a', startedAt: '2026-11-22T21:00:00Z', clearDueAt: '2026-11-22T21:02:00Z', clearSentAt: null,
  expects: { dnp3: false, iec104: false, oms: true }, complete: false, timeline: [], ...over,
});

test('a test fault is "in progress" only while it can be', () => {
  const due = Date.parse('2026-11-22T21:02:00Z');
  assert.is(testFaultStatus(fault({}), due - 1000).kind, 'running');
  assert.is(testFaultStatus(fault({}), due + 40 * 60_000).kind, 'clear-overdue', 'forty minutes on, not "in progress"');
  const sent = fault({ clearSentAt: '2026-11-22T21:02:01Z', timeline: [
    { phase: 'fault', step: 'queued', text: '', at: '2026-11-22T21:00:00Z', sinceQueuedMs: 0, sinceStepBeforeMs: null, detail: {} },
    { phase: 'fault', step: 'stored', text: '', at: '2026-11-22T21:00:01Z', sinceQueuedMs: 1000, sinceStepBeforeMs: 1000, detail: {} },
  ] });
  const waiting = testFaultStatus(sent, due + 10_000);
  assert.is(waiting.kind, 'clearing');
  const ended = testFaultStatus(sent, due + SETTLE_MS + 60_000);
  assert.is(ended.kind, 'incomplete');
  assert.ok(ended.kind === 'incomplete' && ended.missing.some((m) => m.startsWith('fault: OMS answered')), JSON.stringify(ended));
  assert.is(testFaultStatus(fault({ complete: true }), due + 3_600_000).kind, 'done');
});

test.run();
