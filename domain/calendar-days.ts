// The `from` / `to` query parameters of spec 4.2 (docs/decisions.md#read-interface-conventions): `YYYYMMDD`
// calendar days in the caller's timezone, both inclusive. A day is [its start, the next day's start), each
// start taken with Temporal's startOfDay so a day that begins at 01:00 (a DST change at midnight, e.g.
// America/Santiago) or lasts 23 or 25 hours is still exactly one calendar day.
import { Temporal } from 'temporal-polyfill';

const YYYYMMDD = /^(\d{4})(\d{2})(\d{2})$/;

/**
 * The days a `from` / `to` may name (docs/decisions.md#hostile-callers): nothing is stored before 2000
 * (domain/validate-message.ts EARLIEST_TIMESTAMP), and far years would turn into instants PostgreSQL or the
 * clock cannot spell (year 10000), a 500 instead of an answer. Outside them: a 400 naming the parameter.
 */
export const FIRST_SUPPORTED_DAY = '20000101';
export const LAST_SUPPORTED_DAY = '29991231';

/** Is `day` inside FIRST_SUPPORTED_DAY .. LAST_SUPPORTED_DAY? */
export function isSupportedDay(day: Temporal.PlainDate): boolean {
  const text = day.toString().replaceAll('-', '');
  return text.length === 8 && text >= FIRST_SUPPORTED_DAY && text <= LAST_SUPPORTED_DAY;
}

/** The calendar day of `YYYYMMDD`, or null when the text is not one (wrong shape, 20260230). */
export function parseCalendarDay(text: string): Temporal.PlainDate | null {
  const m = YYYYMMDD.exec(text);
  if (!m) return null;
  try {
    return Temporal.PlainDate.from({ year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }, { overflow: 'reject' });
  } catch {
    return null;
  }
}

/** Epoch ms of the first instant of `day` in `timeZone`. */
export function dayStartMs(day: Temporal.PlainDate, timeZone: string): number {
  return day.toZonedDateTime({ timeZone }).startOfDay().epochMilliseconds;
}

export interface InstantRange {
  /** Inclusive lower bound, epoch ms, or null for none. */
  fromMs: number | null;
  /** Exclusive upper bound (the start of the day after `to`), or null for none. */
  untilMs: number | null;
}

/**
 * Ranges computed, by their days and zone: a day's start in a zone does not change, and the Temporal polyfill's
 * zone arithmetic was 5 % of the API's CPU on a ranged list. Bounded, the oldest key forgotten first (a caller
 * chooses the days).
 */
const ranges = new Map<string, InstantRange>();
const RANGES_KEPT = 4096;

/** The instants covered by `from` .. `to` (each optional) in `timeZone`. */
export function calendarDayRange(from: Temporal.PlainDate | null, to: Temporal.PlainDate | null, timeZone: string): InstantRange {
  const key = `${timeZone} ${from?.toString() ?? ''} ${to?.toString() ?? ''}`;
  const known = ranges.get(key);
  if (known) return known;
  const range = Object.freeze({
    fromMs: from === null ? null : dayStartMs(from, timeZone),
    untilMs: to === null ? null : dayStartMs(to.add({ days: 1 }), timeZone),
  });
  if (ranges.size >= RANGES_KEPT) ranges.delete(ranges.keys().next().value!);
  ranges.set(key, range);
  return range;
}
