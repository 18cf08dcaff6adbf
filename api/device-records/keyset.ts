// Keyset pages (`after`, docs/decisions.md#bridge-and-read-performance): a page answers `next`, the cursor
// of its last row, and `after=<next>` reads the rows that follow it in the default order. The statement then
// starts its index walk at the cursor instead of stepping over page * limit rows (OFFSET), so page 10,000
// costs what page 0 costs. Keyset pages follow the endpoint's default order only: a caller's sortBy can sort
// by nullable and non-unique columns in mixed directions, whose "after" would not walk an index either.
import { badParameter } from '../errors.js';
import { isDefaultOrder, type ListQuery, type SortKey } from './list-params.js';
import type { SqlParams } from './sql.js';

/** One column of the default order with its unique tie-breaker, as the cursor carries it. */
export interface KeyColumn {
  /** SQL of the column in the page's select (the alias of the list's rows). */
  sql: string;
  /** Its SQL type, for reading the cursor's text back. */
  type: 'timestamptz' | 'bigint' | 'text';
}

/** The cursor's values, as the database printed them (exact: a timestamp keeps its microseconds). */
export type Cursor = readonly string[];

const PREFIX = 'k1.';
/** How Postgres prints a timestamptz (ISO DateStyle), so a forged cursor is a 400, not a failed cast; its parts captured. */
const TIMESTAMPTZ_TEXT = /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01]) ([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(?:\.(\d{1,6}))?([+-])(\d\d)(?::([0-5]\d))?(?::([0-5]\d))?$/;

/** An instant of TIMESTAMPTZ_TEXT's shape, in numbers (the one parse of a cursor's instant); null for another shape. */
interface InstantText { year: number; month: number; day: number; hour: number; minute: number; second: number; millis: number; offsetSeconds: number }
function instantText(value: string): InstantText | null {
  const m = TIMESTAMPTZ_TEXT.exec(value);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const offsetSeconds = (m[8] === '-' ? -1 : 1) * (Number(m[9]) * 3600 + Number(m[10] ?? 0) * 60 + Number(m[11] ?? 0));
  return { year, month, day, hour, minute, second, millis: Number((m[7] ?? '').padEnd(3, '0').slice(0, 3)), offsetSeconds };
}

const BIGINT_MIN = -(2n ** 63n);
const BIGINT_MAX = 2n ** 63n - 1n;
/** PostgreSQL reads a zone offset of at most 15:59:59. */
const MAX_OFFSET_HOURS = 15;

/**
 * Whether an instant of TIMESTAMPTZ_TEXT's shape is one PostgreSQL reads: a day its month has (not 30 February),
 * year 1 on (no year 0), an offset within MAX_OFFSET_HOURS. Otherwise the cast fails in the statement: a forged
 * cursor was a 500 instead of a 400.
 */
function readableInstant(t: InstantText): boolean {
  const monthEnd = new Date(0);
  monthEnd.setUTCFullYear(t.year, t.month, 0); // day 0 of the next month: this month's last (no two-digit-year mapping)
  return t.year >= 1 && t.day <= monthEnd.getUTCDate() && Math.abs(t.offsetSeconds) < (MAX_OFFSET_HOURS + 1) * 3600;
}

/** The opaque `next` text of a row's key values. */
export function encodeCursor(values: Cursor): string {
  return PREFIX + Buffer.from(JSON.stringify(values), 'utf8').toString('base64url');
}

/** The 400 of a cursor that does not decode. */
export function badCursor() {
  return badParameter('after', 'is not a cursor this endpoint returned (copy `next` from the previous page).');
}

/** The key values of `after`, checked to be `columns.length` strings of their types; anything else is a 400 naming `after`. */
export function decodeCursor(text: string, columns: readonly KeyColumn[]): Cursor {
  const bad = badCursor;
  if (!text.startsWith(PREFIX) || text.length > 512) throw bad();
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(text.slice(PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(values) || values.length !== columns.length || !values.every((v) => typeof v === 'string' && v.length <= 64)) throw bad();
  columns.forEach((c, i) => {
    const v = values[i] as string;
    if (c.type === 'bigint' && !(/^-?\d{1,19}$/.test(v) && BigInt(v) >= BIGINT_MIN && BigInt(v) <= BIGINT_MAX)) throw bad();
    if (c.type === 'timestamptz') {
      const t = instantText(v);
      if (!t || !readableInstant(t)) throw bad();
    }
  });
  return values as string[];
}

/**
 * The cursor of `q`, or null without `after`. `after` reads on from a cursor in the default order, so a
 * page number or a sortBy other than the default beside it is a 400.
 */
export function cursorOf(q: ListQuery, columns: readonly KeyColumn[], defaultSort: readonly SortKey[]): Cursor | null {
  if (q.after === null) return null;
  if (q.page !== 0) throw badParameter('after', 'cannot be combined with page: the cursor says where the page starts.');
  if (!isDefaultOrder(q.sort, defaultSort)) throw badParameter('after', `reads on in the default order only (${defaultSort.map((k) => `${k.field} ${k.order}`).join(', ')}); leave sortBy out.`);
  return decodeCursor(q.after, columns);
}

/**
 * A cursor's instant as a marker's value (endpoint.ts Markers), for a statement planned per request (a day range's):
 * the planner then sees how much of the range lies past the cursor, as it sees the range's bounds; a generic plan's
 * guess made it sort the rest of the range. Past the prepared texts' cap the marker is spelled into the text, so
 * decodeCursor has held it to digits and ISO punctuation (TIMESTAMPTZ_TEXT); checked again here.
 */
export function cursorInstant(value: string): string {
  if (!TIMESTAMPTZ_TEXT.test(value)) throw badCursor();
  return value;
}

/**
 * A cursor's instant (as Postgres printed it) in epoch milliseconds, the sub-millisecond digits dropped: never
 * after the instant, so a window that starts from it misses nothing (newest-window.ts).
 */
export function cursorInstantMs(value: string): number {
  const t = instantText(value);
  if (!t) throw badCursor();
  // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear does not.
  const local = new Date(0);
  local.setUTCFullYear(t.year, t.month - 1, t.day);
  local.setUTCHours(t.hour, t.minute, t.second, t.millis);
  return local.getTime() - t.offsetSeconds * 1000;
}

/** The cursor's values as typed placeholders on `p`, in column order. */
export function cursorParams(cursor: Cursor, columns: readonly KeyColumn[], p: Pick<SqlParams, 'add'>): string[] {
  return columns.map((c, i) => `${p.add(cursor[i])}::${c.type}`);
}

/** `select` items reading a row's key values as text; they come last in a page's select list (endpoint.ts reads them from the row's end). */
export function cursorSelect(columns: readonly KeyColumn[]): string {
  return columns.map((c, i) => `${c.sql}::text as "${cursorName(i)}"`).join(', ');
}

const cursorName = (i: number) => `_cursor${i}`;

/** The `next` of a page: the last row's cursor (its key values read by `keyValues`) when the page is full (more rows may follow), else null. */
export function nextCursor<R>(rows: readonly R[], limit: number, keyValues: (row: R) => unknown[]): string | null {
  if (rows.length < limit || rows.length === 0) return null;
  return encodeCursor(keyValues(rows[rows.length - 1]!).map(String));
}
