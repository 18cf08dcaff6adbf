// ActualOngoingFault at storage time (spec 3.2, 6.1 step 7; docs/decisions.md#processing). The value starts
// as the device-reported Ongoing_fault; the rows below may override it. Only these transitions exist.
import type { DeviceEvent } from './checkin.js';
import { ONGOING_FAULT, type OngoingFaultName } from './ongoing-fault-codes.js';
import { epochMs } from './utc-timestamp.js';

/** "Previous current readings were very low": previous AverageCurrent1m <= this (amperes). */
export const DEFAULT_LOW_CURRENT_A = 1.0;

/** The rows of the spec 3.2 table, in spec order. */
export type OngoingFaultRule = 'PREVIOUS_LOW_CURRENT' | 'CURRENT_RESET_EVENT' | 'OVERCURRENT_EVENT' | 'DM1_FAULT_INITIAL_EVENT';

interface EventRow {
  rule: OngoingFaultRule;
  reported: OngoingFaultName;
  eventType: string;
  dm1Only: boolean;
  next: OngoingFaultName;
}

/** Spec 3.2 rows triggered by a new event. Event types are matched exactly, as in spec 2.3. */
export const EVENT_ROWS: readonly EventRow[] = [
  { rule: 'CURRENT_RESET_EVENT', reported: 'NONE', eventType: 'Current Reset', dm1Only: false, next: 'CURRENT_RESET' },
  { rule: 'OVERCURRENT_EVENT', reported: 'NONE', eventType: 'Overcurrent', dm1Only: false, next: 'OVER_CURRENT' },
  { rule: 'DM1_FAULT_INITIAL_EVENT', reported: 'NONE', eventType: 'FAULT_INITIAL', dm1Only: true, next: 'PERMANENT' },
];

export interface OngoingFaultInput {
  /** device_data.Ongoing_fault as reported. */
  reported: number;
  /** The message's dm1_device flag. */
  dm1: boolean;
  /** Events of this message that passed the event filter ("a ... event occurred" means a new one). */
  newEvents: readonly DeviceEvent[];
  /** The device's previous stored record, or null when there is none. */
  previous: { AverageCurrent1m: number | null } | null;
  /** Default DEFAULT_LOW_CURRENT_A. */
  lowCurrentA?: number;
}

export interface OngoingFaultDecision {
  /** ActualOngoingFault; also the stored Ongoing_fault (spec 2.2). */
  code: number;
  /** The row that changed the value, or null when the reported value stands. */
  rule: OngoingFaultRule | null;
  /** The new event that triggered the row, for event rows. */
  trigger: DeviceEvent | null;
}

/**
 * Spec 3.2. Rows:
 * - reported PERMANENT (4) and the previous record's AverageCurrent1m <= lowCurrentA -> PROBABLE_TEMP_FAULT
 *   (11). No previous record, or a previous record without AverageCurrent1m: no override. PERMANENT_ALT (5)
 *   is not PERMANENT and is left alone.
 * - reported NONE (0) and a new Current Reset event -> CURRENT_RESET (10)
 * - reported NONE (0) and a new Overcurrent event -> OVER_CURRENT (6)
 * - DM1 device reporting NONE (0) and a new FAULT_INITIAL event -> PERMANENT (4)
 * When several event rows apply, the row of the latest new event wins (EventTimestamp, then EventID).
 */
export function computeActualOngoingFault(input: OngoingFaultInput): OngoingFaultDecision {
  const { reported, dm1, newEvents, previous } = input;
  const lowCurrentA = input.lowCurrentA ?? DEFAULT_LOW_CURRENT_A;

  if (reported === ONGOING_FAULT.PERMANENT) {
    const last = previous?.AverageCurrent1m ?? null;
    if (last !== null && last <= lowCurrentA) {
      return { code: ONGOING_FAULT.PROBABLE_TEMP_FAULT, rule: 'PREVIOUS_LOW_CURRENT', trigger: null };
    }
    return { code: reported, rule: null, trigger: null };
  }

  let best: { row: EventRow; event: DeviceEvent; at: number } | null = null;
  for (const event of newEvents) {
    const row = EVENT_ROWS.find((r) => r.eventType === event.EventType && ONGOING_FAULT[r.reported] === reported && (dm1 || !r.dm1Only));
    if (!row) continue;
    const at = epochMs(event.EventTimestamp);
    if (best === null || at > best.at || (at === best.at && event.EventID > best.event.EventID)) best = { row, event, at };
  }
  if (best === null) return { code: reported, rule: null, trigger: null };
  return { code: ONGOING_FAULT[best.row.next], rule: best.row.rule, trigger: best.event };
}
