// The fleet data-log's unranged pages in the default order (newest first) read the newest stretch of history first
// and widen only when it does not hold the page (docs/decisions.md#newest-first-windows). The answer is the same
// page: a window is widened until the page is full inside it, and every row outside sorts after the page. The lower
// bound is on the partition key. In a statement prepared once it is a placeholder, so the pool's generic plan
// (db/pool.ts) drops the older partitions when the statement starts ("Subplans Removed"); in one planned per request
// (an OFFSET page) it is a value the plan is made with, so the planner leaves them out of the plan: planning every
// month of the walk and of the row lookup was about 5 ms of a deep page at 20M check-ins (endpoint.ts statement).
import { createHash } from 'node:crypto';
import { isDefaultOrder, type ListQuery, type SortKey } from './list-params.js';

const DAY_MS = 86_400_000;

/** The spans tried in turn, newest first; the last is the whole history. */
export const WINDOW_SPANS_MS: readonly number[] = [DAY_MS, 16 * DAY_MS, 256 * DAY_MS, Infinity];

/** Where the window's lower bound stands in a page statement's text until each attempt sets it (endpoint.ts
 * statement): not SQL, so a text that escaped unset fails to parse instead of reading a wrong window. */
export const WINDOW_START = '$newest_window_start';

/** What pageRows needs to read a page through widening windows (endpoint.ts PageSql.window). */
export interface NewestWindow {
  /** The newest instant a row of the page can sort at: now, or the keyset cursor's instant. Rows dated later
   * (a clock ahead) are inside every window, since the window has no upper bound. The list sorts by the
   * partition key itself, so every row inside a window sorts before every row outside it. */
  newestMs: number;
  /** Positions of a keyset cursor's values, left out of the span memory's key: every page of a chain is the
   * same statement with the next cursor, about as dense as the page before, so the chain shares one span
   * (keyed by the cursor, each page of a sparse chain climbed the ladder again). */
  cursorSlots?: readonly number[];
}

/**
 * A list's newest-first window, when it has one: no day range and the default order (another order would not
 * meet the newest rows first). `condition` (empty without a window) goes into the page's walk and row lookup, never
 * its total; its bound is WINDOW_START, set per attempt.
 */
export function newestWindow(q: Pick<ListQuery, 'from' | 'to' | 'sort'>, defaultSort: readonly SortKey[], column: string,
  newestMs: number, cursorSlots: readonly number[] = []): { condition: string[]; window?: NewestWindow } {
  if (q.from !== null || q.to !== null || !isDefaultOrder(q.sort, defaultSort)) return { condition: [] };
  return { condition: [`${column} >= ${WINDOW_START}`], window: { newestMs, cursorSlots } };
}

/** 0001-01-01T00:00:00Z: before it, toISOString writes years PostgreSQL does not read (0000, -000001). */
const YEAR_ONE_MS = -62_135_596_800_000;

/**
 * The bound's value for a span: an ISO instant, or '-infinity' for the whole history, also when the start would
 * fall before year 1 (a keyset cursor forged at 0001-01-01: a wider window, the same answer).
 */
export function windowStart(newestMs: number, spanMs: number): string {
  const start = newestMs - spanMs;
  return spanMs === Infinity || !(start >= YEAR_ONE_MS) ? '-infinity' : new Date(start).toISOString();
}

/**
 * Whether a page read inside a window of `spanMs` is the page over the whole history: the window is the whole
 * history, or the page is full (every row outside sorts after every row inside, so after the page).
 */
export function windowHoldsPage(rows: readonly unknown[][], limit: number, spanMs: number): boolean {
  return spanMs === Infinity || (rows.length === limit && rows.length > 0);
}

/**
 * The span each statement (text and values but the window's and a keyset cursor's) last needed, so the next
 * request for the same list starts there instead of at a day: a group user who reaches a few quiet devices needs a
 * year, every time. Bounded, the oldest forgotten first; a forgotten or wrong span costs attempts, never a
 * different answer. Each statement is held by its digest: a caller sets the key's length (filter values up to the
 * URL's 16 kB, a statement per keyset or OFFSET page), and 10,000 keys of that size held ~200 MB
 * (docs/decisions.md#newest-first-windows).
 */
export function spanMemory(maxEntries = 10_000) {
  const spans = new Map<string, number>();
  const digest = (key: string) => createHash('sha1').update(key).digest('base64url');
  return {
    firstSpan(key: string): number {
      return spans.get(digest(key)) ?? WINDOW_SPANS_MS[0]!;
    },
    remember(key: string, spanMs: number): void {
      const d = digest(key);
      spans.delete(d);
      if (spans.size >= maxEntries) spans.delete(spans.keys().next().value!);
      spans.set(d, spanMs);
    },
  };
}

/** The spans from `first` on. */
export const spansFrom = (first: number): number[] => WINDOW_SPANS_MS.filter((s) => s >= first);
