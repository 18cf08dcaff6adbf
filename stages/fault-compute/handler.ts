// fault-compute, the pure part (spec 6.1 steps 4, 5 and 7; spec 3.2 and 3.4): the previous record, the
// model-change alert, ActualOngoingFault and the Fault <50 shifts.
import type { ModelMap } from '../../domain/model-replacement.js';
import { computeActualOngoingFault } from '../../domain/ongoing-fault.js';
import { FAULT_SHIFT_WINDOW_MS, planFaultShifts, type StoredShiftCandidate } from '../../domain/fault-shift.js';
import { SHIFT_TYPES } from '../../domain/fault-events.js';
import type { CheckIn } from '../../domain/checkin.js';
import { modelChangeAlert } from '../../domain/model-change-alert.js';
import { epochMs } from '../../domain/utc-timestamp.js';
import { REPROCESS_SOURCE } from '../../plumbing/sources.js';
import type { ComputedCheckIn, DedupedCheckIn } from '../../schemas/avro/values.js';
import { EVENTS_KEPT, RECORDS_KEPT, type FaultState, type RecordSummary } from './state.js';

const SHIFT_TYPE_SET: ReadonlySet<string> = new Set(SHIFT_TYPES);

export interface FaultRules {
  modelMap: ModelMap;
  lowCurrentA: number;
}

/**
 * "The previous record" is the device's latest record dated before this check-in, not the last one to
 * arrive: a late message then gets the same answer on every run, which keeps replays deterministic.
 */
export function previousRecord(records: readonly RecordSummary[], date: string): RecordSummary | null {
  const at = epochMs(date);
  let best: RecordSummary | null = null;
  for (const r of records) if (epochMs(r.date) < at && (!best || epochMs(r.date) > epochMs(best.date))) best = r;
  return best;
}

/**
 * Whether the held records cannot answer "the previous record" of a check-in dated `date`: some records were
 * left out (only RECORDS_KEPT are held) and none held is older than it. The stage then reads it from Postgres.
 */
export function needsRecordBefore(state: FaultState, date: string): boolean {
  const oldest = state.records[0];
  return !state.allRecords && (oldest === undefined || epochMs(date) <= epochMs(oldest.date));
}

/** What the held state keeps of a computed check-in. */
export function summaryOf(message: DedupedCheckIn, ActualOngoingFault: number): RecordSummary {
  const d = message.checkIn.device_data;
  return { date: d.date, model: d.model, AverageCurrent1m: d.AverageCurrent1m, ActualOngoingFault };
}

/**
 * The reported instants (ms) a check-in's shift-type events may pair with (spec 3.4's window either side of
 * them), when the held candidates cannot answer: some were left out (only EVENTS_KEPT are held) and the window
 * reaches back to the oldest held one or before (what was left out was stored before what is held). Else null.
 */
export function candidatesWanted(state: FaultState, checkIn: Pick<CheckIn, 'dm1_device' | 'events'>): [number, number] | null {
  if (state.allEvents || checkIn.dm1_device) return null;
  const times = checkIn.events.filter((e) => SHIFT_TYPE_SET.has(e.EventType)).map((e) => epochMs(e.EventTimestamp));
  if (times.length === 0) return null;
  const from = Math.min(...times) - FAULT_SHIFT_WINDOW_MS;
  const oldestHeld = Math.min(...state.events.map((e) => epochMs(e.EventTimestamp)));
  return from <= oldestHeld ? [from, Math.max(...times) + FAULT_SHIFT_WINDOW_MS] : null;
}

/** What the held state left out, read when needsRecordBefore / candidatesWanted say the held ones cannot tell. */
export interface OlderHistory {
  records: readonly RecordSummary[];
  events: readonly StoredShiftCandidate[];
}

const NOTHING_OLDER: OlderHistory = { records: [], events: [] };
const candidateKey = (e: { EventID: number; EventTimestamp: string }) => `${e.EventID}@${e.EventTimestamp}`;

export function computeMessage(message: DedupedCheckIn, state: FaultState, rules: FaultRules, older: OlderHistory = NOTHING_OLDER): { value: ComputedCheckIn; state: FaultState } {
  const { checkIn } = message;
  const d = checkIn.device_data;
  const previous = previousRecord([...older.records, ...state.records], d.date);
  const decision = computeActualOngoingFault({
    reported: d.Ongoing_fault, dm1: checkIn.dm1_device, newEvents: checkIn.events, previous, lowCurrentA: rules.lowCurrentA,
  });
  const alert = modelChangeAlert({ IMEINumber: d.IMEINumber, newModel: d.model, previous, at: d.date, modelMap: rules.modelMap });
  // The held candidates, and the stored ones read for a very late check-in that are not held (a held one may
  // carry a move this batch made that Postgres does not have yet).
  const heldKeys = new Set(state.events.map(candidateKey));
  const candidates = older.events.length ? [...older.events.filter((e) => !heldKeys.has(candidateKey(e))), ...state.events] : state.events;
  const shifts = checkIn.dm1_device ? [] : planFaultShifts(checkIn.events, candidates);
  const moved = new Set(shifts.map((s) => `${s.EventID}@${s.fromTimestamp}`));

  // A live check-in of a date already held is a resend: it stores no record (persist keeps the first copy's), so
  // the held record stays. A reprocess rewrites the stored one's derived columns, so it replaces it.
  // (Dates compare as text: enrich writes a message's date as toISOString does a stored one's.)
  const resend = message.source !== REPROCESS_SOURCE && state.records.some((r) => r.date === d.date);
  const held = resend ? state.records : [...state.records.filter((r) => r.date !== d.date), summaryOf(message, decision.code)]
    .sort((a, b) => epochMs(a.date) - epochMs(b.date));
  const records = held.slice(-RECORDS_KEPT);
  const candidatesAfter = checkIn.dm1_device ? state.events : [
    ...state.events.map((e) => (moved.has(candidateKey(e)) ? { ...e, shifted: true } : e)),
    // Shift candidates only, as loadFaultState reads them: other events would push them out of the bound.
    ...checkIn.events.filter((e) => SHIFT_TYPE_SET.has(e.EventType)).map((e) => ({ EventID: e.EventID, EventTimestamp: e.EventTimestamp, EventType: e.EventType, shifted: moved.has(candidateKey(e)) })),
  ];
  const events = candidatesAfter.slice(-EVENTS_KEPT);

  return {
    value: {
      ...message,
      ActualOngoingFault: decision.code,
      ReportedOngoingFault: d.Ongoing_fault,
      shifts: shifts.map((s) => ({ EventID: s.EventID, fromTimestamp: s.fromTimestamp, toTimestamp: s.toTimestamp })),
      alert: alert ? { oldModel: alert.oldModel, newModel: alert.newModel } : null,
      previousActualOngoingFault: previous?.ActualOngoingFault ?? null,
    },
    state: { records, allRecords: state.allRecords && held.length === records.length, events, allEvents: state.allEvents && candidatesAfter.length === events.length },
  };
}
