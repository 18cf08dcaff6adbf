// One read endpoint: its path, what it accepts, what it answers (for the OpenAPI document) and how it runs.
// routes.ts mounts every endpoint from this description and openapi/ documents it from the same object,
// so the document cannot drift from the routes.
import type pg from 'pg';
import { integerLiteral } from '../../db/sql-literal.js';
import { DEFAULT_FLOOR_S, offlineAtSql } from '../../domain/checkin-clock.js';
import type { CodeStrings } from '../../domain/code-strings.js';
import type { Caller } from '../auth/caller.js';
import type { ListQuery, ParameterSpec, SortKey } from './list-params.js';
import { whereClause, type SqlParams } from './sql.js';
import { prepared, preparedPerRequest } from './prepared.js';
import { plannedPerRequest } from '../../db/pool.js';
import { shortCache, type ShortCache } from './short-cache.js';
import type { FleetAnswer } from './fleet-answer.js';
import type { UnchangedAnswers } from './unchanged-answers.js';
import { cursorSelect, nextCursor, type KeyColumn } from './keyset.js';
import { JsonText, pageText, type RowWriter } from './row-json.js';
import { spanMemory, spansFrom, WINDOW_START, windowHoldsPage, windowStart, type NewestWindow } from './newest-window.js';
import type { CriticalWalk } from './critical-walk.js';

export interface ReadDeps {
  pool: pg.Pool;
  codeStrings: CodeStrings;
  /** OFFLINE_AFTER_HOURS (docs/decisions.md#read-interface-conventions): the ceiling of the communication-lost rule. */
  offlineAfterHours: number;
  /** CHECKIN_INTERVAL_FLOOR_MINUTES in seconds (domain/checkin-clock.ts); default DEFAULT_FLOOR_S. */
  checkinFloorS?: number;
  now: () => number;
  /** The app's one-second cache for fleet-wide answers, serialized (short-cache.ts, routes.ts). */
  shortCache: ShortCache<FleetAnswer>;
  /** The app's one-second cache of large page totals (totalsCache). */
  totals: ShortCache<Total>;
  /** The app's one-second cache of critical-data walks per caller and range (critical-data.ts walkFor). */
  walks: ShortCache<CriticalWalk>;
  /** How many devices each reach holds, for a minute (reach.ts pageReach). */
  reachSizes: ShortCache<number>;
  /** Fleet answers kept while the database does not change (unchanged-answers.ts). */
  unchanged: UnchangedAnswers;
}

/** Joins each device `d` to its learned check-in clock `c` (domain/checkin-clock.ts), for onlineSql. */
export const CLOCK_JOIN = 'left join checkin_clock c on c."IMEINumber" = d."IMEINumber"';

/**
 * SQL that is true while device `d` is online by the communication-lost rule (domain/checkin-clock.ts: two
 * learned check-in intervals, OFFLINE_AFTER_HOURS the ceiling), the one DNP3's point and the alarm use; null
 * before its first check-in. device-summary's count, all-devices' Connectivity filter and map-data's
 * `Offline` read it. Needs CLOCK_JOIN.
 */
export function onlineSql(deps: Pick<ReadDeps, 'now' | 'offlineAfterHours' | 'checkinFloorS'>, p: SqlParams): string {
  return `(${offlineInstantSql(deps, p)} >= ${p.add(new Date(deps.now()))}::timestamptz)`;
}

/** SQL of the instant device `d` goes offline by that rule (null before its first check-in). Needs CLOCK_JOIN. */
export function offlineInstantSql(deps: Pick<ReadDeps, 'offlineAfterHours' | 'checkinFloorS'>, p: SqlParams): string {
  return offlineAtSql('d."LastCheckInTime"', 'c.expected_interval_s', p.add(deps.checkinFloorS ?? DEFAULT_FLOOR_S), p.add(deps.offlineAfterHours * 3600));
}

export interface ReadEndpoint {
  /** Hono path under /device-records (READ_ENDPOINTS), or the whole path of another capability's endpoints
   * mounted at `/` (api/fleet/endpoints.ts); `:imei` is the spec's `<imei_number>`. */
  path: string;
  /** The OpenAPI operationId and tag; default: made from the path, tag `device-records`. */
  operationId?: string;
  tag?: string;
  summary: string;
  description: string;
  params: ParameterSpec;
  defaultSort?: readonly SortKey[];
  /** Which timestamp `from` / `to` apply to (documentation). */
  rangeField?: string;
  /** Component schema name of one item (paginated / list) or of the whole body (object). */
  schema: string;
  /** csv: `run` answers a text/csv byte stream (attachment `fileName`), masked line by line as it passes. */
  shape: 'paginated' | 'list' | 'object' | 'csv';
  fileName?: string;
  /** Over the whole fleet in reach at once (map-data, device-summary, the fleet cards): answered from the one-second cache with an ETag (routes.ts). */
  fleetWide?: true;
  /** A fleet answer (a JsonText with its validUntilMs) kept past the second while the database does not change (unchanged-answers.ts). */
  keptWhileUnchanged?: true;
  run(deps: ReadDeps, caller: Caller, query: ListQuery, imei: string | undefined): Promise<unknown>;
}

/**
 * A filtered or day-ranged total counts at most this many rows; past it the answer is the planner's estimate,
 * marked so (docs/decisions.md#storage-lifecycle): counting millions of rows per request would not stay fast
 * as the tables grow, and even 10,000 a request (~10 ms of a core) is too many at 200 requests a second.
 */
export const COUNT_CAP = 1_000;

export interface PageSql {
  /** A WITH list the page statement begins with (not the total's): a data-log OFFSET page's reach set (reach.ts recordReach). */
  with?: string;
  selectList: string;
  fromWhere: string;
  order: string;
  /** The markers the page statement's text (and `countParts`, if they name them) holds besides the page's cut, set
   * when it is sent (statement): the day range's (sql.ts rangeMarkers) and a ranged keyset page's cursor instant. */
  range?: Markers;
  /** The page's generic plan does not depend on its range (sql.ts rangedFirstPage): a ranged first or keyset page is
   * prepared like an unranged one. Otherwise a ranged first page is planned per request with its range's values. */
  rangeInGenericPlan?: true;
  /** A whole `select <n> as n ...` statement for an exact total (counters), with its own values. */
  count?: { sql: string; values: unknown[] };
  /** The exact total, already known (a device's counter, read with its reach: totals.ts deviceTotal): no count statement. */
  total?: number;
  /** Without `count`: the `from ... where ...` parts whose rows add up to the total, counted up to COUNT_CAP
   * each, with their values; default `fromWhere` with the values of `p`. */
  countParts?: { parts: string[]; values: unknown[] };
  /** Deferred join: find the page's unique keys first (the `key` columns of `alias` over `fromWhere`, an
   * index-only walk when an index covers the order and the conditions), then read only those rows from `table`
   * (as `alias`, which the select list and order use), each by its key. Without it, OFFSET fetches every
   * skipped row whole. The key holds the partition key, so each row is read in its own partition. `within`:
   * the request's day range on the partition key (sql.ts rangeMarkers), so the row lookup's plan made per request
   * holds only the range's partitions: planning the lookup over every partition cost more than the page
   * (docs/decisions.md#totals-for-a-second). */
  deferred?: { table: string; alias: string; key: readonly string[]; within?: readonly string[] };
  /** Endpoints that take `after`: the default order's key columns, read back into the page's `next` (keyset.ts).
   * The endpoint puts the cursor's condition into `fromWhere` itself (and leaves it out of the count). */
  keyset?: readonly KeyColumn[];
  /** The fleet data-log's unranged pages in the default order: the page statement holds a lower bound on the
   * partition key (in the walk and in the row lookup, never in the total), and pageRows widens it until the window
   * holds the page (newest-window.ts). */
  window?: NewestWindow;
  /** Columns the page statement selects as nulls and a second statement fills in place, once the page's rows are
   * known (critical-data: the check-in's faults, read by a prepared statement: in a statement planned per
   * request, a lookup in device_records is planned over every month). */
  fill?: (pool: pg.Pool, rows: unknown[][]) => Promise<void>;
  /** A `selectList` with its numbers packed (packed-numbers.ts): each row read is set back to the plain list's shape. */
  unpack?: (row: readonly unknown[]) => unknown[];
}

/**
 * Each part's rows counted up to COUNT_CAP + 1. If a part has more, the total is the planner's estimate of all
 * parts together (one EXPLAIN of their UNION ALL, which uses every value the parts share), and at least what
 * was counted.
 */
async function cappedTotal(pool: pg.Pool, { parts, values }: { parts: string[]; values: unknown[] }, plan: Planning, instants: Markers): Promise<Total> {
  const text = `select ${parts.map((fw, i) => `(select count(*) from (select 1 ${fw} limit ${COUNT_CAP + 1}) s) as n${i}`).join(', ')}`;
  const count = statement(pool, text, values, plan, instants);
  const { rows } = await count.pool.query<Record<string, string>>(count.config);
  const counted = parts.map((_, i) => Number(rows[0]![`n${i}`]));
  const floor = counted.reduce((a, b) => a + b, 0);
  if (counted.every((n) => n <= COUNT_CAP)) return { total: floor, estimated: false };
  const estimate = await pool.query<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(
    filled(`explain (format json) ${parts.map((fw) => `select 1 ${fw}`).join(' union all ')}`, instants, literal), values);
  return { total: Math.max(floor, Math.round(estimate.rows[0]!['QUERY PLAN'][0].Plan['Plan Rows'])), estimated: true };
}

export interface Total { total: number; estimated: boolean }

/**
 * The app's cache of totals of COUNT_CAP rows or more, per statement (text and values: all a total depends on),
 * for `ttlMs`. Summing the counters of 10,000 devices costs ~4.5 ms of Postgres per request, as much as the page
 * itself, and a total that large moves every second anyway; a smaller total is counted afresh each time, so a
 * list short enough to check by eye is never behind (docs/decisions.md#totals-for-a-second).
 */
export const totalsCache = ({ ttlMs, now }: { ttlMs: number; now: () => number }): ShortCache<Total> =>
  shortCache<Total>({ ttlMs, now, keep: (t) => t.total >= COUNT_CAP });

const rememberedTotal = (totals: ShortCache<Total>, statement: { text: string; values: unknown[] }, compute: () => Promise<Total>): Promise<Total> =>
  totals(JSON.stringify([statement.text, statement.values]), compute);

/** What a page is read with: the pool, and the cache its total may come from. */
type PageDeps = Pick<ReadDeps, 'pool' | 'totals'>;

/**
 * The page's keys (`cut`: its limit and offset), then each row read by its key in a LATERAL: a nested loop
 * whose inner probe sees the key's partition-key value, so it is pruned to that one partition at run time.
 * `(key) in (select key ...)` let the planner pick the join: at a day cut (~100 partitions) it hashed the keys
 * and scanned every partition whole (docs/decisions.md#reads-bounded-at-a-fine-cut). `limit 1` (the key is
 * unique) keeps the subquery from being pulled up into a plain join.
 */
function deferredPage(d: NonNullable<PageSql['deferred']>, selectList: string, sql: PageSql, cut: string): string {
  const keys = d.key.map((c) => `${d.alias}."${c}"`).join(', ');
  const match = d.key.map((c) => `${d.alias}."${c}" = k."${c}"`).join(' and ');
  return `select ${selectList} from (select ${keys} ${sql.fromWhere} order by ${sql.order} ${cut}) k
    cross join lateral (select * from ${d.table} ${d.alias} ${whereClause([match, ...d.within ?? []])} limit 1) ${d.alias}
    order by ${sql.order}`;
}

/**
 * Values a statement's text holds as markers (`$name`, not SQL, so a text that escaped unset fails to parse) until it
 * is sent (statement): instants, the newest-first window's bound (newest-window.ts WINDOW_START, per attempt) and a
 * day range's (sql.ts rangeMarkers), each one `toISOString` wrote or `-infinity`, and a keyset cursor's, held to ISO
 * text (keyset.ts cursorInstant); and integers, a page's cut (PAGE_CUT: its limit, offset and their sum).
 */
export type Markers = Readonly<Record<string, string | number>>;

/** A page's cut as markers: `limit`, `offset`, and `top`, the rows up to the page's end, which an endpoint cuts each of its sources to (events, critical-data). */
export const PAGE_CUT = { limit: '$page_limit', offset: '$page_offset', top: '$page_top' } as const;

/** `text` with each marker of `markers` replaced by what `as` makes of its value (a replacer: `$` in it is never a pattern). */
const filled = (text: string, markers: Markers, as: (value: string | number) => string): string =>
  Object.entries(markers).reduce((t, [marker, value]) => t.replaceAll(marker, () => as(value)), text);

/** A marker's value as a SQL literal: an integer, or an instant (`toISOString` wrote it, or it is `-infinity`). */
const literal = (value: string | number) => (typeof value === 'number' ? integerLiteral(value) : `'${value}'::timestamptz`);

/**
 * How a statement is planned (docs/decisions.md#statements-planned-per-request): `once` per connection, a generic
 * plan of a prepared statement, for texts whose best plan does not depend on their values (an unranged first page,
 * an unranged total); `per request`, prepared by name on the pool's plannedPerRequest sibling (db/pool.ts) and
 * planned with its values, for those whose does (a day range, a deep page).
 */
export type Planning = 'once' | 'per request';

/**
 * The statement with its markers set, and the pool to send it to. Planned once: each instant a placeholder after the
 * statement's values, one text for every value, and each integer spelled in (a generic plan for an unknown limit
 * assumes a tenth of the rows and hashes or sorts them all). Planned per request: every marker a placeholder, so one
 * text serves every range and every page. Past the prepared texts' cap (prepared.ts), or per request with no marker
 * in its text: an unnamed text with every marker written in, so the planner leaves out the months outside a range.
 */
export function statement(pool: pg.Pool, text: string, values: unknown[], plan: Planning, markers: Markers): { pool: pg.Pool; config: pg.QueryConfig } {
  // Only the markers the text names: a count's parts may leave the page's range out.
  const named = Object.keys(markers).some((marker) => text.includes(marker));
  if (plan === 'once' || named) {
    // A placeholder per occurrence (the walk's and the row lookup's): a value the text never names would be a
    // parameter PostgreSQL cannot type.
    const all = [...values];
    const withPlaceholders = filled(text, markers, (value) => {
      if (plan === 'once' && typeof value === 'number') return literal(value);
      all.push(value);
      return `$${all.length}::${typeof value === 'number' ? 'bigint' : 'timestamptz'}`;
    });
    const config = plan === 'once' ? prepared(withPlaceholders, all) : preparedPerRequest(withPlaceholders, all);
    if (config.name !== undefined) return { pool: plan === 'once' ? pool : plannedPerRequest(pool), config };
    if (!named) return { pool, config };
  }
  return { pool, config: { text: filled(text, markers, literal), values } };
}

const spans = spanMemory();

/**
 * The page statement's rows, through widening windows when it has one: each attempt sets the window's bound and
 * the first window that holds the page answers; the span that did is remembered for the statement's next request
 * (a keyset page's: for the chain's next page).
 */
async function pageStatementRows(pool: pg.Pool, text: string, values: unknown[], plan: Planning, limit: number, markers: Markers, window: NewestWindow | undefined, unpack: PageSql['unpack']): Promise<unknown[][]> {
  const read = async (all: Markers) => {
    const page = statement(pool, text, values, plan, all);
    const { rows } = await page.pool.query<unknown[]>({ ...page.config, rowMode: 'array' });
    return unpack ? rows.map(unpack) : rows;
  };
  if (!window) return read(markers);
  const key = JSON.stringify([text, values.filter((_, i) => !window.cursorSlots?.includes(i)), markers]);
  for (const span of spansFrom(spans.firstSpan(key))) {
    const rows = await read({ ...markers, [WINDOW_START]: windowStart(window.newestMs, span) });
    if (windowHoldsPage(rows, limit, span)) {
      // A keyset chain's short page is its end, read in the whole history: it would teach the chain's
      // next walk to read every page so (docs/decisions.md#newest-first-windows).
      if (rows.length === limit || !window.cursorSlots?.length) spans.remember(key, span);
      return rows;
    }
  }
  throw new Error('unreachable: the last window is the whole history');
}

/** The total a page without a cursor tells by itself: when it is not full and not past the end (an empty page beyond page 0 may be). */
export function shortPageTotal(rows: number, q: Pick<ListQuery, 'page' | 'limit' | 'after'>): Total | null {
  if (q.after !== null || rows >= q.limit || (rows === 0 && q.page > 0)) return null;
  return { total: q.page * q.limit + rows, estimated: false };
}

/** A page's rows as pg read them (arrays), its total and its `next` (keyset pages). */
interface PageRows { rows: unknown[][]; total: number; totalIsEstimate: boolean; next?: { next: string | null } }

/**
 * Runs `select <list> <from-where>` for one page and the count statement for the total, in parallel.
 * `fromWhere` uses the placeholders `p` holds now; limit and offset are added after them.
 */
async function pageRows({ pool, totals }: PageDeps, p: SqlParams, sql: PageSql, q: ListQuery): Promise<PageRows> {
  const exact = sql.count;
  const parts = sql.countParts ?? { parts: [sql.fromWhere], values: [...p.values] };
  // The first page, most requests, is planned once where its best plan does not depend on its values (unranged, or
  // a range the generic plan serves: sql.rangeInGenericPlan); every other page per request with its range and its
  // cut as values (statement): a generic plan for an unknown `limit $n offset $m` assumes a tenth of the rows and
  // hashes or sorts them all (a deep page took 300-500 ms at 1M check-ins instead of 16). A total is planned once
  // when unranged, per request with its range otherwise (a generic plan counted a week 3-5x slower).
  const first = q.page === 0;
  const unranged = q.from === null && q.to === null;
  const plan: Planning = first && (unranged || sql.rangeInGenericPlan) ? 'once' : 'per request';
  const instants = sql.range ?? {};
  const markers: Markers = { ...instants, [PAGE_CUT.limit]: q.limit, [PAGE_CUT.offset]: q.page * q.limit, [PAGE_CUT.top]: q.page * q.limit + q.limit };
  const cut = `limit ${PAGE_CUT.limit} offset ${PAGE_CUT.offset}`;
  const selectList = sql.keyset ? `${sql.selectList}, ${cursorSelect(sql.keyset)}` : sql.selectList;
  const page = (sql.with ? `with ${sql.with} ` : '') + (sql.deferred ? deferredPage(sql.deferred, selectList, sql, cut)
    : `select ${selectList} ${sql.fromWhere} order by ${sql.order} ${cut}`);
  const rowsRead = pageStatementRows(pool, page, p.values, plan, q.limit, markers, sql.window, sql.unpack);
  const counted = (): Promise<Total> | Total => sql.total !== undefined ? { total: sql.total, estimated: false } : exact
    ? rememberedTotal(totals, { text: exact.sql, values: exact.values },
      () => pool.query<{ n: string }>(prepared(exact.sql, exact.values)).then((r) => ({ total: Number(r.rows[0]!.n), estimated: false })))
    : rememberedTotal(totals, { text: filled(parts.parts.join('\n'), instants, literal), values: parts.values },
      () => cappedTotal(pool, parts, unranged ? 'once' : 'per request', instants));
  // Without a cursor, a page that is not full tells its total (the rows before it and its own), so the count is
  // asked only when the page cannot: a device's week of events is most often a short page, and its count cost
  // as much as the page (docs/decisions.md#a-short-page-is-its-own-total). A keyset page's total is the whole
  // list's, not what follows the cursor: counted beside it.
  const [rows, count] = q.after !== null ? await Promise.all([rowsRead, counted()]) : await rowsRead.then(async (read) => [read, shortPageTotal(read.length, q) ?? await counted()] as const);
  if (sql.fill && rows.length > 0) await sql.fill(pool, rows);
  // The cursor's columns come last in the select list: read from the row's end.
  const keys = sql.keyset?.length ?? 0;
  const next = sql.keyset ? { next: nextCursor(rows, q.limit, (row) => row.slice(-keys)) } : undefined;
  return { rows, total: count.total, totalIsEstimate: count.estimated, ...(next ? { next } : {}) };
}

/**
 * One page read as arrays (`sql.selectList` the columns `write` reads, in order) and written straight into
 * its JSON text by `write` (row-json.ts): the body JSON.stringify of the page of presented objects would give.
 */
export async function pageJson<C>(deps: PageDeps, p: SqlParams, sql: PageSql, q: ListQuery, write: RowWriter<C>, ctx: C): Promise<JsonText> {
  const r = await pageRows(deps, p, sql, q);
  const rows = r.rows.map((row) => write(row, ctx));
  return new JsonText(pageText(rows, { page: q.page, limit: q.limit, total: r.total, totalIsEstimate: r.totalIsEstimate, ...r.next }));
}
