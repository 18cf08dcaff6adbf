// Duplicate device record check (spec 6.1 step 8, spec 7 "Duplicate handling", docs/decisions.md#duplicate-device-record):
// a stored record with the same IMEINumber and the same `date` means the device resent
// the check-in. Then no second record and no second currents row; the message is acknowledged and counted.
import type { CheckIn } from './checkin.js';
import { epochMs } from './utc-timestamp.js';

/**
 * True when `checkIn` repeats a stored record of the same device. `stored` is what the caller knows of
 * that device's records: the latest record's date (spec: "against the latest record"), a set of recent
 * dates, or null when the device has no record. Dates are compared as instants, so
 * `2026-11-20T14:05:00Z` and `2026-11-20T14:05:00.000Z` (or a value read back from timestamptz) match.
 */
export function isDuplicateCheckIn(checkIn: CheckIn, stored: string | null | Iterable<string>): boolean {
  if (stored === null) return false;
  const at = epochMs(checkIn.device_data.date);
  if (typeof stored === 'string') return epochMs(stored) === at;
  for (const date of stored) if (epochMs(date) === at) return true;
  return false;
}
