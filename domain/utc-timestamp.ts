// The one place that turns device timestamps into instants and back. The interchange form everywhere after
// validation is UTC ISO 8601 with milliseconds, `2026-11-20T14:00:00.000Z` (checkin.ts), so stored values,
// Kafka payloads and tests compare as plain strings.
import { Temporal } from 'temporal-polyfill';

/**
 * What to do with a timestamp that has no offset (`2026-11-20T14:00:00`). Default `reject`: the spec says
 * timestamps are stored as UTC, and guessing the zone of a field device is how a fleet ends up an hour
 * off twice a year. `utc` is there for firmware known to send UTC without the `Z`.
 */
export type NaiveTimestampPolicy = 'reject' | 'utc';

const HAS_TIME = /[0-9][Tt ][0-9]/;
/** `2026-11-20T14:00:00Z` with up to 3 fraction digits. */
const PLAIN_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;
/** The interchange form of formatUtc: `2026-11-20T14:00:00.000Z`. */
const INTERCHANGE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Parses ISO 8601 / RFC 3339 text with `Z` or a numeric offset (Temporal's grammar: also a space instead of
 * `T`, basic format, a trailing `[zone]` annotation). Returns null for anything else. Precision below a
 * millisecond is truncated, because the stored form carries milliseconds.
 */
export function parseTimestamp(text: string, naive: NaiveTimestampPolicy = 'reject'): Temporal.Instant | null {
  // Nearly every device sends plain `...Z` UTC; Date.parse reads that form exactly and far cheaper than the
  // polyfill's full grammar (bench/pipeline profile). Anything else takes the full path.
  if (PLAIN_UTC.test(text)) {
    const ms = fastUtcMs(text);
    if (ms !== null) return Temporal.Instant.fromEpochMilliseconds(ms);
  }
  try {
    return truncateToMs(Temporal.Instant.from(text));
  } catch {
    if (naive !== 'utc') return null;
  }
  if (!HAS_TIME.test(text)) return null; // a bare date is not a timestamp, even read as UTC
  try {
    return truncateToMs(Temporal.PlainDateTime.from(text).toZonedDateTime('UTC').toInstant());
  } catch {
    return null;
  }
}

/**
 * Date.parse for plain UTC text, or null. Date.parse rolls impossible dates over (Feb 30 -> Mar 2), so the
 * result must print back to the same date and time, or the text goes to the strict path (which refuses it).
 */
function fastUtcMs(text: string): number | null {
  const ms = Date.parse(text);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 19) !== text.slice(0, 19)) return null;
  return ms;
}

function truncateToMs(instant: Temporal.Instant): Temporal.Instant {
  return Temporal.Instant.fromEpochMilliseconds(instant.epochMilliseconds);
}

/** `2026-11-20T14:00:00.000Z`: UTC, always three fraction digits. */
export function formatUtc(instant: Temporal.Instant): string {
  return instant.toString({ fractionalSecondDigits: 3 });
}

/**
 * Epoch milliseconds of a timestamp that was already validated (a CheckIn field, a stored value). Throws on
 * anything unparseable, because reaching here with a bad string is a programming error, not bad input.
 */
export function epochMs(iso: string): number {
  // Hot path (every event comparison in dedup and fault-compute): the interchange form is exactly what
  // Date.parse reads without ambiguity, and it is ~20x cheaper than the Temporal polyfill (bench/pipeline).
  if (INTERCHANGE.test(iso)) {
    const ms = fastUtcMs(iso);
    if (ms !== null) return ms;
  }
  const instant = parseTimestamp(iso);
  if (!instant) throw new RangeError(`not an ISO 8601 timestamp with an offset: ${JSON.stringify(iso)}`);
  return instant.epochMilliseconds;
}

/** Normalises a timestamp that has an offset to the interchange form. Throws like epochMs. */
export function normaliseUtc(iso: string): string {
  return formatUtc(Temporal.Instant.fromEpochMilliseconds(epochMs(iso)));
}

/** `iso` moved by `ms` milliseconds (negative: earlier), in the interchange form. */
export function shiftUtc(iso: string, ms: number): string {
  return formatUtc(Temporal.Instant.fromEpochMilliseconds(epochMs(iso) + ms));
}
