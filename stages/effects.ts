// What a stored check-in owes downstream, and how that debt is carried across a crash
// (docs/decisions.md#effects-exactly-once-across-a-crash). persist records, in the transaction that stores a
// record, what notify needs for it (a pending_effects row: the message and the events it stored); notify
// applies and clears that row in one transaction of its own. Pure: the rule shared by both stages, no I/O.
import type { ComputedCheckIn, PersistedCheckIn } from '../schemas/avro/values.js';
import { isReread } from '../plumbing/sources.js';

/**
 * Whether storing this message's record owes notify's effects (DNP3 feed, MultiSpeak rows, alarms, test-fault
 * marks): a live message of a known device. Only the message that created the record speaks for it; persist
 * knows that inside its transaction (merge.ts `pending`).
 */
export const owesEffects = (m: ComputedCheckIn): boolean => !isReread(m.source) && m.device !== null;

/** A pending_effects row as read back. */
export interface PendingEffectsRow { RecordID: string | number; message: ComputedCheckIn; storedEventIds: (string | number)[] }

/** The notify input a pending row stands for: the record's owner, with the events it stored. */
export function persistedFromPending(row: PendingEffectsRow): PersistedCheckIn {
  return { ...row.message, DeviceRecordID: Number(row.RecordID), ownsRecord: true, storedEventIds: row.storedEventIds.map(Number) };
}
