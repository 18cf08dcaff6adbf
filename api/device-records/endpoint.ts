// One read endpoint: its path, what it accepts, what it answers (for the OpenAPI document) and how it runs.
// routes.ts mounts every endpoint from this description and openapi/ documents it from the same object,
// so the document cannot drift from the routes.
import type pg from 'pg';
import type { CodeStrings } from '../../domain/code-strings.js';
import type { Caller } from '../auth/caller.js';
import type { ListQuery, ParameterSpec, SortKey } from './list-params.js';
import type { SqlParams } from './sql.js';
import type { ShortCache } from './short-cache.js';

export interface ReadDeps {
  pool: pg.Pool;
  codeStrings: CodeStrings;
  /** OFFLINE_AFTER_HOURS (docs/decisions.md#read-interface-conventions): no check-in for this long is offline. */
  offlineAfterHours: number;
  now: () => number;
  /** The app's one-second cache for fleet-wide answers (short-cache.ts). */
  shortCache: ShortCache<unknown>;
}

/** The instant before which a last check-in means offline (device-summary's count, all-devices' filter). */
export const offlineSince = ({ now, offlineAfterHours }: Pick<ReadDeps, 'now' | 'offlineAfterHours'>) => new Date(now() - offlineAfterHours * 3_600_000);

export interface ReadEndpoint {
  /** Hono path under /device-records; `:imei` is the spec's `<imei_number>`. */
  path: string;
  summary: string;
  description: string;
  params: ParameterSpec;
  defaultSort?: readonly SortKey[];
  /** Which timestamp `from` / `to` apply to (documentation). */
  rangeField?: string;
  /** Component schema name of one item (paginated / list) or of the whole body (object). */
  schema: string;
  shape: 'paginated' | 'list' | 'object';
  run(deps: ReadDeps, caller: Caller, query: ListQuery, imei: string | undefined): Promise<unknown>;
}

export interface Page<T> {
  data: T[];
  page: number;
  limit: number;
  total: number;
}

export interface PageSql {
  selectList: string;
  fromWhere: string;
  order: string;
  /** A whole `select <n> as n ...` statement for the total, with its own values; default
   * `select count(*) as n <fromWhere>` with the values of `p`. */
  count?: { sql: string; values: unknown[] };
  /** Deferred join: find the page's unique keys first (`key` over `fromWhere`, an index-only walk when an
   * index covers the order and the conditions), then read only those rows from `table` (whose alias the
   * select list and order use). Without it, OFFSET fetches every skipped row whole. */
  deferred?: { key: string; table: string };
}

/**
 * Runs `select <list> <from-where>` for one page and the count statement for the total, in parallel.
 * `fromWhere` uses the placeholders `p` holds now; limit and offset are added after them.
 */
export async function pageOf<T>(pool: pg.Pool, p: SqlParams, sql: PageSql, q: ListQuery, present: (row: Record<string, unknown>) => T): Promise<Page<T>> {
  const total = sql.count ?? { sql: `select count(*) as n ${sql.fromWhere}`, values: [...p.values] };
  const limit = p.add(q.limit);
  const offset = p.add(q.page * q.limit);
  const page = sql.deferred
    ? `select ${sql.selectList} from ${sql.deferred.table} where ${sql.deferred.key} in
         (select ${sql.deferred.key} ${sql.fromWhere} order by ${sql.order} limit ${limit} offset ${offset})
       order by ${sql.order}`
    : `select ${sql.selectList} ${sql.fromWhere} order by ${sql.order} limit ${limit} offset ${offset}`;
  const [rows, count] = await Promise.all([
    pool.query(page, p.values),
    pool.query<{ n: string }>(total.sql, total.values),
  ]);
  return { data: rows.rows.map(present), page: q.page, limit: q.limit, total: Number(count.rows[0]!.n) };
}
