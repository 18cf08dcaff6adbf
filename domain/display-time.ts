// Response timestamps of spec 4.2 ("Response formatting" 1): UTC instants shown in the caller's timezone as
// `YYYY-MMM-DD hh:mm A`, e.g. `2026-Nov-22 03:04 PM`. Temporal does the zone arithmetic, so a day with a
// daylight-saving change shows the offset in force at that instant, not the one of the day's start.
import { Temporal } from 'temporal-polyfill';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

const two = (n: number) => String(n).padStart(2, '0');

// Zones already judged: a request with an integration key (its organisation's zone) and every token verified
// asked Temporal again (tens of microseconds each). Any text may be asked (a forged token's claim), so the
// memo is bounded: past MAX_JUDGED it starts again.
const MAX_JUDGED = 1_000;
const judged = new Map<string, boolean>();

/** True when `zone` is an IANA zone (or UTC / a fixed offset) that Temporal knows. */
export function isTimeZone(zone: string): boolean {
  const known = judged.get(zone);
  if (known !== undefined) return known;
  let ok = zone !== '';
  if (ok) {
    try {
      Temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(zone);
    } catch {
      ok = false;
    }
  }
  if (judged.size >= MAX_JUDGED) judged.clear();
  judged.set(zone, ok);
  return ok;
}

/** The first zone of the chain that Temporal knows: a typo in one row must not break every response or message. */
export function effectiveTimeZone(...zones: (string | null | undefined)[]): string {
  return zones.find((z): z is string => typeof z === 'string' && isTimeZone(z)) ?? 'UTC';
}

// A zone's offset changes only at its transitions (twice a year for DST zones), so each zone keeps the
// spans [transition, next transition) it has met, with their offset: Temporal is asked once per span and
// the rest is arithmetic. A page of 50 rows with two timestamps each then costs microseconds instead of
// a millisecond of Temporal work (measured: ~10 us per Temporal conversion).
interface OffsetSpan { from: number; until: number; offset: number }
const MAX_SPANS_PER_ZONE = 64;
const spans = new Map<string, OffsetSpan[]>();

function offsetAt(epochMs: number, timeZone: string): number {
  return Temporal.Instant.fromEpochMilliseconds(epochMs).toZonedDateTimeISO(timeZone).offsetNanoseconds / 1e6;
}

/** Offset of `timeZone` from UTC, in ms, at the instant `epochMs` (Temporal's answer, cached per span). */
export function zoneOffsetMs(epochMs: number, timeZone: string): number {
  let list = spans.get(timeZone);
  if (list) {
    for (const span of list) if (epochMs >= span.from && epochMs < span.until) return span.offset;
  } else {
    list = [];
    spans.set(timeZone, list);
  }
  const zoned = Temporal.Instant.fromEpochMilliseconds(epochMs).toZonedDateTimeISO(timeZone);
  const offset = zoned.offsetNanoseconds / 1e6;
  const next = zoned.getTimeZoneTransition('next');
  const previous = zoned.getTimeZoneTransition('previous');
  let from = previous ? previous.epochMilliseconds : Number.NEGATIVE_INFINITY;
  // At a transition instant `previous` is the one before it, whose span has another offset.
  if (previous && offsetAt(from, timeZone) !== offset) from = epochMs;
  if (list.length >= MAX_SPANS_PER_ZONE) list.length = 0;
  list.push({ from, until: next ? next.epochMilliseconds : Number.POSITIVE_INFINITY, offset });
  return offset;
}

/**
 * `epochMs` in `timeZone` as `YYYY-MMM-DD hh:mm A`. Seconds are dropped (not rounded), as the incumbent
 * portal shows them.
 *
 * @example
 *   formatDisplayTime(Date.UTC(2026, 10, 22, 21, 4), 'America/Chicago'); // '2026-Nov-22 03:04 PM'
 */
export function formatDisplayTime(epochMs: number, timeZone: string): string {
  // The wall-clock fields of the zone are the UTC fields of the instant moved by the zone's offset.
  const t = new Date(epochMs + zoneOffsetMs(epochMs, timeZone));
  const hour = t.getUTCHours();
  const hour12 = hour % 12 === 0 ? 12 : hour % 12;
  const year = String(t.getUTCFullYear()).padStart(4, '0');
  return `${year}-${MONTHS[t.getUTCMonth()]}-${two(t.getUTCDate())} ${two(hour12)}:${two(t.getUTCMinutes())} ${hour < 12 ? 'AM' : 'PM'}`;
}

/** The same text straight from Temporal, without the offset cache: the reference the tests hold the fast path to. */
export function formatDisplayTimeTemporal(epochMs: number, timeZone: string): string {
  const t = Temporal.Instant.fromEpochMilliseconds(epochMs).toZonedDateTimeISO(timeZone);
  const hour12 = t.hour % 12 === 0 ? 12 : t.hour % 12;
  const year = String(t.year).padStart(4, '0');
  return `${year}-${MONTHS[t.month - 1]}-${two(t.day)} ${two(hour12)}:${two(t.minute)} ${t.hour < 12 ? 'AM' : 'PM'}`;
}

/** A stored timestamp (pg gives `Date`) or null, formatted; null stays null. */
export function formatDisplayTimeOrNull(value: Date | null, timeZone: string): string | null {
  return value === null ? null : formatDisplayTime(value.getTime(), timeZone);
}

/**
 * `epochMs` in `timeZone` as `YYYY-MMM-DD hh:mm:ss A`: the display format with its seconds, for a reader
 * that asks for them (the portal: two check-ins of one minute are two times, not one).
 */
export function formatDisplayTimeSeconds(epochMs: number, timeZone: string): string {
  const minutes = formatDisplayTime(epochMs, timeZone);
  const seconds = String(Math.floor(((epochMs % 60_000) + 60_000) % 60_000 / 1000)).padStart(2, '0');
  return `${minutes.slice(0, -3)}:${seconds}${minutes.slice(-3)}`;
}
