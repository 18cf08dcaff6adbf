// The text of a timestamptz as Postgres sends it, read into a Date. A page of 50 check-ins carries 100 of
// them, and pg's own reader (postgres-date: three regular expressions, one with a lazy `.*?`) was 5-8 % of the
// read API's CPU (docs/decisions.md#timestamps-read-by-hand). This one reads the shape Postgres writes in its
// default ISO DateStyle, `2026-11-29 12:01:34.123456+00` (an offset of -05, +05:30 or +05:53:28 too), by
// character codes; anything else (infinity, BC, a year below 1000, another DateStyle) goes to pg's reader,
// so the answer is the same for every text.
import pg from 'pg';

/** pg's own reader (postgres-date), taken before db/pool.ts puts parseTimestamptz in its place. */
export const pgTimestamptz: (text: string) => Date | number | null = pg.types.getTypeParser(1184, 'text');

const ZERO = 48;

/** The value of `n` digits of `s` from `at`, or NaN if one is not a digit. */
function digits(s: string, at: number, n: number): number {
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const d = s.charCodeAt(i) - ZERO;
    if (d < 0 || d > 9) return NaN;
    v = v * 10 + d;
  }
  return v;
}

/**
 * The instant of a timestamptz's text, as pg's reader gives it: a Date, or for what only pg's reads,
 * ±Infinity (infinity) or null (a text it cannot read).
 * @example (parseTimestamptz('2026-11-29 12:01:34.5+01') as Date).toISOString(); // '2026-11-29T11:01:34.500Z'
 */
export function parseTimestamptz(s: string): Date | number | null {
  return fast(s) ?? pgTimestamptz(s);
}

function fast(s: string): Date | null {
  if (s.length < 22 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(10) !== 32 || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return null;
  const year = digits(s, 0, 4);
  if (!(year >= 1000)) return null;
  let at = 19;
  let ms = 0;
  if (s.charCodeAt(at) === 46) {
    // Up to six digits of fraction; the milliseconds are its first three (a Date holds no finer).
    let scale = 100;
    at++;
    const start = at;
    while (at < s.length && s.charCodeAt(at) >= ZERO && s.charCodeAt(at) <= ZERO + 9) {
      ms += (s.charCodeAt(at) - ZERO) * scale;
      scale = scale > 1 ? scale / 10 : 0;
      at++;
    }
    if (at === start || at - start > 6) return null;
  }
  const sign = s.charCodeAt(at);
  if (sign !== 43 && sign !== 45) return null;
  // The offset: ±HH, ±HH:MM or ±HH:MM:SS, and nothing after it.
  const rest = s.length - at - 1;
  if (rest !== 2 && rest !== 5 && rest !== 8) return null;
  let offset = digits(s, at + 1, 2) * 3600;
  if (rest >= 5) offset += s.charCodeAt(at + 3) === 58 ? digits(s, at + 4, 2) * 60 : NaN;
  if (rest === 8) offset += s.charCodeAt(at + 6) === 58 ? digits(s, at + 7, 2) : NaN;
  const utc = Date.UTC(year, digits(s, 5, 2) - 1, digits(s, 8, 2), digits(s, 11, 2), digits(s, 14, 2), digits(s, 17, 2), ms);
  const t = utc - (sign === 45 ? -offset : offset) * 1000;
  return Number.isNaN(t) ? null : new Date(t);
}
