// Response timestamps of spec 4.2 ("Response formatting" 1): UTC instants shown in the caller's timezone as
// `YYYY-MMM-DD hh:mm A`, e.g. `2026-Nov-22 03:04 PM`. Temporal does the zone arithmetic, so a day with a
// daylight-saving change shows the offset in force at that instant, not the one of the day's start.
import { Temporal } from 'temporal-polyfill';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

const two = (n: number) => String(n).padStart(2, '0');

/** True when `zone` is an IANA zone (or UTC / a fixed offset) that Temporal knows. */
export function isTimeZone(zone: string): boolean {
  if (zone === '') return false;
  try {
    Temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(zone);
    return true;
  } catch {
    return false;
  }
}

/**
 * `epochMs` in `timeZone` as `YYYY-MMM-DD hh:mm A`. Seconds are dropped (not rounded), as the incumbent
 * portal shows them.
 *
 * @example
 *   formatDisplayTime(Date.UTC(2026, 10, 22, 21, 4), 'America/Chicago'); // '2026-Nov-22 03:04 PM'
 */
export function formatDisplayTime(epochMs: number, timeZone: string): string {
  const t = Temporal.Instant.fromEpochMilliseconds(epochMs).toZonedDateTimeISO(timeZone);
  const hour12 = t.hour % 12 === 0 ? 12 : t.hour % 12;
  const year = String(t.year).padStart(4, '0');
  return `${year}-${MONTHS[t.month - 1]}-${two(t.day)} ${two(hour12)}:${two(t.minute)} ${t.hour < 12 ? 'AM' : 'PM'}`;
}

/** A stored timestamp (pg gives `Date`) or null, formatted; null stays null. */
export function formatDisplayTimeOrNull(value: Date | null, timeZone: string): string | null {
  return value === null ? null : formatDisplayTime(value.getTime(), timeZone);
}
