// fault-compute, the pure part (spec 6.1 steps 4, 5 and 7; spec 3.2 and 3.4): the previous record, the
// model-change alert, ActualOngoingFault and the Fault <50 shifts.
import type { ModelMap } from '../../domain/model-replacement.js';
import { computeActualOngoingFault } from '../../domain/ongoing-fault.js';
import { planFaultShifts } from '../../domain/fault-shift.js';
import { SHIFT_TYPES } from '../../domain/fault-events.js';
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

/** `older`: records the held ones left out, read when needsRecordBefore says they cannot tell. */
export function computeMessage(message: DedupedCheckIn, state: FaultState, rules: FaultRules, older: readonly RecordSummary[] = []): { value: ComputedCheckIn; state: FaultState } {
  const { checkIn } = message;
  const d = checkIn.device_data;
  const previous = previousRecord([...older, ...state.records], d.date);
  const decision = computeActualOngoingFault({
    reported: d.Ongoing_fault, dm1: checkIn.dm1_device, newEvents: checkIn.events, previous, lowCurrentA: rules.lowCurrentA,
  });
  const alert = modelChangeAlert({ IMEINumber: d.IMEINumber, newModel: d.model, previous, at: d.date, modelMap: rules.modelMap });
  const shifts = checkIn.dm1_device ? [] : planFaultShifts(checkIn.events, state.events);
  const moved = new Set(shifts.map((s) => `${s.EventID}@${s.fromTimestamp}`));

  // A live check-in of a date already held is a resend: it stores no record (persist keeps the first copy's), so
  // the held record stays. A reprocess rewrites the stored one's derived columns, so it replaces it.
  // (Dates compare as text: enrich writes a message's date as toISOString does a stored one's.)
  const resend = message.source !== REPROCESS_SOURCE && state.records.some((r) => r.date === d.date);
  const held = resend ? state.records : [...state.records.filter((r) => r.date !== d.date), summaryOf(message, decision.code)]
    .sort((a, b) => epochMs(a.date) - epochMs(b.date));
  const records = held.slice(-RECORDS_KEPT);
  const events = checkIn.dm1_device ? state.events : [
    ...state.events.map((e) => (moved.has(`${e.EventID}@${e.EventTimestamp}`) ? { ...e, shifted: true } : e)),
    // Shift candidates only, as loadFaultState reads them: other events would push them out of the bound.
    ...checkIn.events.filter((e) => SHIFT_TYPE_SET.has(e.EventType)).map((e) => ({ EventID: e.EventID, EventTimestamp: e.EventTimestamp, EventType: e.EventType, shifted: moved.has(`${e.EventID}@${e.EventTimestamp}`) })),
  ].slice(-EVENTS_KEPT);

  return {
    value: {
      ...message,
      ActualOngoingFault: decision.code,
      ReportedOngoingFault: d.Ongoing_fault,
      shifts: shifts.map((s) => ({ EventID: s.EventID, fromTimestamp: s.fromTimestamp, toTimestamp: s.toTimestamp })),
      alert: alert ? { oldModel: alert.oldModel, newModel: alert.newModel } : null,
      previousActualOngoingFault: previous?.ActualOngoingFault ?? null,
    },
    state: { records, allRecords: state.allRecords && held.length === records.length, events },
  };
}
