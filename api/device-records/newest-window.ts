// The fleet data-log's unranged pages in the default order (newest first) read the newest stretch of history first
// and widen only when it does not hold the page (docs/decisions.md#newest-first-windows). The lower bound is a
// placeholder on the partition key, so the pool's generic plan (db/pool.ts) drops the older partitions when the
// statement starts ("Subplans Removed") instead of starting every month's index walk. The answer is the same
// page: a window is widened until the page is full inside it, and every row outside sorts after the page.
import { isDefaultOrder, type ListQuery, type SortKey } from './list-params.js';
import type { SqlParams } from './sql.js';

const DAY_MS = 86_400_000;

/** The spans tried in turn, newest first; the last is the whole history. */
export const WINDOW_SPANS_MS: readonly number[] = [DAY_MS, 16 * DAY_MS, 256 * DAY_MS, Infinity];

/** What pageRows needs to read a page through widening windows (endpoint.ts PageSql.window). */
export interface NewestWindow {
  /** Position in the statement's values of the window's lower bound (`$n`, from newestWindowCondition). */
  slot: number;
  /** The newest instant a row of the page can sort at: now, or the keyset cursor's instant. Rows dated later
   * (a clock ahead) are inside every window, since the window has no upper bound. The list sorts by the
   * partition key itself, so every row inside a window sorts before every row outside it. */
  newestMs: number;
}

/**
 * The window's lower bound on the partition key `column`, as a placeholder on `p` (its value is set per attempt),
 * for the page statement's walk and its row lookup, never its total. Returns the condition and the slot.
 */
export function newestWindowCondition(p: SqlParams, column: string): { condition: string; slot: number } {
  const placeholder = p.add(null);
  return { condition: `${column} >= ${placeholder}::timestamptz`, slot: p.values.length - 1 };
}

/**
 * A list's newest-first window, when it has one: no day range and the default order (another order would not
 * meet the newest rows first). `condition` (empty without a window) goes into the page's walk and row lookup.
 */
export function newestWindow(q: Pick<ListQuery, 'from' | 'to' | 'sort'>, defaultSort: readonly SortKey[], p: SqlParams, column: string,
  newestMs: number): { condition: string[]; window?: NewestWindow } {
  if (q.from !== null || q.to !== null || !isDefaultOrder(q.sort, defaultSort)) return { condition: [] };
  const { condition, slot } = newestWindowCondition(p, column);
  return { condition: [condition], window: { slot, newestMs } };
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
 * The span each statement (text and values but the window) last needed, so the next request for the same list
 * starts there instead of at a day: a group user who reaches a few quiet devices needs a year, every time. Bounded, the
 * oldest forgotten first; a forgotten or wrong span costs attempts, never a different answer.
 */
export function spanMemory(maxEntries = 10_000) {
  const spans = new Map<string, number>();
  return {
    firstSpan(key: string): number {
      return spans.get(key) ?? WINDOW_SPANS_MS[0]!;
    },
    remember(key: string, spanMs: number): void {
      spans.delete(key);
      if (spans.size >= maxEntries) spans.delete(spans.keys().next().value!);
      spans.set(key, spanMs);
    },
  };
}

/** The spans from `first` on. */
export const spansFrom = (first: number): number[] => WINDOW_SPANS_MS.filter((s) => s >= first);
