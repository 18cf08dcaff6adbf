// Test faults (docs/decisions.md#test-faults): the synthetic check-ins a test fault sends through the real queue,
// the mark that makes the stored record a test, and the timeline with its latencies. Pure: plain data in,
// plain data out; the sending, storing and clock are the callers'.
import { DEVICE_NUMBER_FIELDS, DEVICE_STRING_FIELDS, type DeviceData, type TestFaultMark, type TestFaultPhase } from './checkin.js';

/** The reported Ongoing_fault of a test fault's check-in: 4 (Permanent) by default, so it is an outage. */
export const DEFAULT_TEST_FAULT_CODE = 4;

/** The steps of one phase, in the order a healthy delivery passes them. */
export const TIMELINE_STEPS = ['queued', 'stored', 'dnp3Sent', 'dnp3Confirmed', 'iec104Sent', 'iec104Confirmed', 'omsAnswered', 'omsFailed'] as const;
export type TimelineStep = (typeof TIMELINE_STEPS)[number];

/**
 * The step each one follows: DNP3, IEC 104 and the OMS are branches from `stored` (the delivery worker and the
 * stations work side by side), and a master's confirm follows the send.
 */
export const PREDECESSOR: Record<TimelineStep, TimelineStep | null> = {
  queued: null, stored: 'queued', dnp3Sent: 'stored', dnp3Confirmed: 'dnp3Sent', iec104Sent: 'stored', iec104Confirmed: 'iec104Sent', omsAnswered: 'stored', omsFailed: 'stored',
};

export const STEP_TEXT: Record<TimelineStep, string> = {
  queued: 'queued (the queue accepted the synthetic check-in)',
  stored: 'stored by the pipeline',
  dnp3Sent: 'DNP3 event sent to the master',
  dnp3Confirmed: 'DNP3 event confirmed by the master',
  iec104Sent: 'IEC 104 event sent to the master',
  iec104Confirmed: 'IEC 104 event acknowledged by the master',
  omsAnswered: 'OMS answered the notification',
  omsFailed: 'OMS delivery failed (retried)',
};

/** What a synthetic check-in copies of the device's newest stored record, so no reading jumps. */
export type LatestValues = Partial<Pick<DeviceData, (typeof DEVICE_NUMBER_FIELDS)[number] | (typeof DEVICE_STRING_FIELDS)[number]>>;

export interface SyntheticCheckIn {
  device_data: Record<string, unknown>;
  events: [];
  currents: null;
  dm1_device: false;
  test_fault: TestFaultMark;
}

/**
 * The queue message of one phase: the device's newest readings, dated `dateIso`, reporting `faultCode` (fault
 * phase) or 0 (clear phase). No events: an EventID of ours would move the device's event high-water mark and
 * make the device's own next events look old (docs/decisions.md#event-filter). No currents row either.
 */
export function syntheticCheckIn(imei: string, latest: LatestValues, mark: TestFaultMark, dateIso: string, faultCode = DEFAULT_TEST_FAULT_CODE): SyntheticCheckIn {
  const data: Record<string, unknown> = { IMEINumber: imei, date: dateIso, Ongoing_fault: mark.phase === 'fault' ? faultCode : 0 };
  for (const f of [...DEVICE_STRING_FIELDS, ...DEVICE_NUMBER_FIELDS]) {
    const v = latest[f];
    if (v !== null && v !== undefined) data[f] = v;
  }
  // State 3 is "Test" in the default code strings: a reader of the record sees it for what it is.
  data.State = mark.phase === 'fault' ? 3 : 0;
  data.FaultType = mark.phase === 'fault' ? 2 : 0;
  return { device_data: data, events: [], currents: null, dm1_device: false, test_fault: mark };
}

export interface StepRow { phase: TestFaultPhase; step: TimelineStep; at: number; detail: Record<string, unknown> }

export interface TimelineEntry {
  phase: TestFaultPhase;
  step: TimelineStep;
  text: string;
  /** ISO 8601 UTC. */
  at: string;
  /** Since the phase's check-in was queued. */
  sinceQueuedMs: number | null;
  /** Since the step it follows (PREDECESSOR), when that one is recorded. */
  sinceStepBeforeMs: number | null;
  detail: Record<string, unknown>;
}

/** The recorded steps in phase and step order, each with its latencies. */
export function presentTimeline(rows: readonly StepRow[]): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  for (const phase of ['fault', 'clear'] as const) {
    const mine = rows.filter((r) => r.phase === phase).sort((a, b) => TIMELINE_STEPS.indexOf(a.step) - TIMELINE_STEPS.indexOf(b.step));
    const queued = mine.find((r) => r.step === 'queued');
    for (const r of mine) {
      const before = mine.find((x) => x.step === PREDECESSOR[r.step]);
      out.push({
        phase, step: r.step, text: STEP_TEXT[r.step], at: new Date(r.at).toISOString(),
        sinceQueuedMs: queued ? r.at - queued.at : null,
        sinceStepBeforeMs: before ? r.at - before.at : null,
        detail: r.detail,
      });
    }
  }
  return out;
}

/** What an organisation delivers a test fault to: a DNP3 master, an IEC 104 master, an OMS (its enabled integrations). */
export interface StepExpectations { dnp3: boolean; iec104: boolean; oms: boolean }

/** Which steps a phase still lacks, given what the deployment delivers to. */
export function missingSteps(rows: readonly StepRow[], phase: TestFaultPhase, expect: StepExpectations): TimelineStep[] {
  const want: TimelineStep[] = ['queued', 'stored', ...(expect.dnp3 ? ['dnp3Sent', 'dnp3Confirmed'] as const : []),
    ...(expect.iec104 ? ['iec104Sent', 'iec104Confirmed'] as const : []), ...(expect.oms ? ['omsAnswered'] as const : [])];
  const have = new Set(rows.filter((r) => r.phase === phase).map((r) => r.step));
  return want.filter((s) => !have.has(s));
}
