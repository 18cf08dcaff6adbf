// Test faults, the pure part (domain/test-fault.ts): the synthetic check-ins, the mark the validator accepts,
// and the timeline's latencies. Table-driven.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isTestFaultMark } from '../../domain/checkin.js';
import { missingSteps, presentTimeline, syntheticCheckIn, type StepExpectations, type StepRow } from '../../domain/test-fault.js';
import { parseQueueMessage } from '../../domain/validate-message.js';

const IMEI = '861000000000000';
const LATEST = { AverageCurrent1m: 120.5, BatteryMCU: 3.6, model: 'FCI-3000', BatteryOrLine: 0, State: 0, Temperature: null };

test('marks: a positive whole id and a phase, nothing else', () => {
  const rows: [unknown, boolean][] = [
    [{ id: 1, phase: 'fault' }, true], [{ id: 9, phase: 'clear' }, true], [{ id: 0, phase: 'fault' }, false],
    [{ id: 1.5, phase: 'fault' }, false], [{ id: '1', phase: 'fault' }, false], [{ id: 1, phase: 'done' }, false], [null, false], ['1:fault', false],
  ];
  for (const [value, ok] of rows) assert.is(isTestFaultMark(value), ok, JSON.stringify(value));
});

test('the fault and clear check-ins: newest readings copied, the fault code reported, State Test, no events, valid queue messages', () => {
  const rows = [
    { phase: 'fault' as const, code: 4, fault: 4, state: 3, faultType: 2 },
    { phase: 'fault' as const, code: 6, fault: 6, state: 3, faultType: 2 },
    { phase: 'clear' as const, code: 4, fault: 0, state: 0, faultType: 0 },
  ];
  for (const r of rows) {
    const body = syntheticCheckIn(IMEI, LATEST, { id: 7, phase: r.phase }, '2026-11-20T14:00:00.000Z', r.code);
    const parsed = parseQueueMessage(JSON.stringify(body));
    assert.ok(parsed.ok, JSON.stringify(parsed));
    if (!parsed.ok) continue;
    const d = parsed.value.device_data;
    assert.equal([d.Ongoing_fault, d.State, d.FaultType, d.AverageCurrent1m, d.model, d.Temperature], [r.fault, r.state, r.faultType, 120.5, 'FCI-3000', null]);
    assert.equal(parsed.value.events, []);
    assert.is(parsed.value.currents, null);
    assert.equal(parsed.value.test_fault, { id: 7, phase: r.phase });
  }
});

test('the validator: a real check-in has no mark; a broken mark is INVALID naming test_fault', () => {
  const body = syntheticCheckIn(IMEI, {}, { id: 7, phase: 'fault' }, '2026-11-20T14:00:00.000Z');
  const { test_fault: _mark, ...real } = body;
  const plain = parseQueueMessage(JSON.stringify(real));
  assert.ok(plain.ok && !('test_fault' in plain.value));
  const broken = parseQueueMessage(JSON.stringify({ ...body, test_fault: { id: -1, phase: 'fault' } }));
  assert.ok(!broken.ok && broken.code === 'INVALID' && broken.reason.includes('test_fault'), JSON.stringify(broken));
});

const at = (s: number) => Date.UTC(2026, 10, 20, 14, 0, s);
const row = (phase: 'fault' | 'clear', step: StepRow['step'], s: number, detail = {}): StepRow => ({ phase, step, at: at(s), detail });

test('timeline: phases in order, each step with its latency since queued and since the step it follows', () => {
  const rows = [
    row('clear', 'queued', 60), row('fault', 'omsAnswered', 3, { status: 200 }), row('fault', 'stored', 1), row('fault', 'queued', 0),
    row('fault', 'dnp3Confirmed', 2), row('fault', 'dnp3Sent', 2), row('fault', 'omsFailed', 2), row('clear', 'stored', 61),
  ];
  const t = presentTimeline(rows);
  assert.equal(t.map((e) => `${e.phase}:${e.step}`), ['fault:queued', 'fault:stored', 'fault:dnp3Sent', 'fault:dnp3Confirmed', 'fault:omsAnswered', 'fault:omsFailed', 'clear:queued', 'clear:stored']);
  assert.equal(t.map((e) => e.sinceQueuedMs), [0, 1000, 2000, 2000, 3000, 2000, 0, 1000]);
  // DNP3 and the OMS branch from stored; the confirm follows the send.
  assert.equal(t.map((e) => e.sinceStepBeforeMs), [null, 1000, 1000, 0, 2000, 1000, null, 1000]);
  assert.is(t[0]!.at, '2026-11-20T14:00:00.000Z');
});

test('missing steps depend on what the organisation delivers to', () => {
  const rows = [row('fault', 'queued', 0), row('fault', 'stored', 1), row('fault', 'dnp3Sent', 2)];
  const cases: [StepExpectations, string[]][] = [
    [{ dnp3: true, iec104: false, oms: true }, ['dnp3Confirmed', 'omsAnswered']],
    [{ dnp3: true, iec104: false, oms: false }, ['dnp3Confirmed']],
    [{ dnp3: false, iec104: true, oms: false }, ['iec104Sent', 'iec104Confirmed']],
    [{ dnp3: false, iec104: false, oms: false }, []],
  ];
  for (const [expect, missing] of cases) assert.equal(missingSteps(rows, 'fault', expect), missing);
  assert.equal(missingSteps(rows, 'clear', { dnp3: false, iec104: false, oms: false }), ['queued', 'stored']);
});

test.run();
