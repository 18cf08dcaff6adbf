// The Postgres connection pool. One per process; every component borrows from it.
import pg from 'pg';
import { parseTimestamptz } from './timestamptz.js';

// timestamptz columns (type 1184) come back as Date, as pg's default gives them but read faster
// (timestamptz.ts), and bigint (int8, type 20) as JS numbers: our identities stay far below 2^53, and
// numbers serialise to JSON as the API expects.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1184, parseTimestamptz);

export interface PoolOptions {
  connectionString: string;
  max?: number;
  applicationName?: string;
}

export function createPool({ connectionString, max = 10, applicationName = 'faultline' }: PoolOptions): pg.Pool {
  // Generic plans: prepared (named) statements keep one plan per connection: the read API's lists over the
  // month partitions took 20-50 ms to plan and 2-7 ms to run (docs/decisions.md#storage-lifecycle); partitions
  // are still pruned at run time. Unnamed statements with parameters are planned each time, but generically
  // too, without their values: a value that changes the plan (a limit, an offset) belongs in the SQL text, or in a
  // statement sent to the pool's plannedPerRequest sibling.
  return connectionPool({ connectionString, max, application_name: applicationName }, 'force_generic_plan');
}

/**
 * A pool whose connections use `planCacheMode`. No parallel workers: faultline's statements are many, small and
 * concurrent; starting a gather's workers cost more than it saved (a week of critical-data) and takes the cores
 * other requests and stages need.
 */
function connectionPool(config: pg.PoolConfig, planCacheMode: 'force_generic_plan' | 'force_custom_plan'): pg.Pool {
  const options = `-c plan_cache_mode=${planCacheMode} -c max_parallel_workers_per_gather=0`;
  const pool = new pg.Pool({ connectionTimeoutMillis: 10_000, ...config, options });
  // An idle client losing its connection (database restart) must not crash the process; the next
  // checkout reconnects.
  pool.on('error', () => {});
  // pg-pool listens for errors only on idle clients. A checked-out client between two queries (a stage
  // awaiting Kafka inside a transaction, persist between COPY and merge) that receives the server's
  // "terminating connection" (57P01, a restart) would emit an unhandled 'error' and kill the process.
  // With this listener the next query on it fails with a retriable error instead, and release() drops it.
  pool.on('connect', (client) => {
    client.on('error', () => {});
    const ended: Promise<void> = new Promise((resolve) => client.once('end', () => { closing.delete(ended); resolve(); }));
    closing.add(ended);
  });
  const closing = new Set<Promise<void>>();
  connectionsEnded.set(pool, closing);
  return pool;
}

/** A pool may name its plannedPerRequest sibling itself: a test's recording pool does, to record what goes there too. */
export const PLANNED_PER_REQUEST = Symbol('plannedPerRequest');
const siblings = new WeakMap<pg.Pool, pg.Pool>();

/**
 * The sibling of `pool` for statements planned per request with their values (docs/decisions.md
 * #statements-planned-per-request): the same database and settings (TLS, timeouts), as many connections (they
 * carried these statements before: fewer let one caller's slow ranges queue everybody else's), and
 * `plan_cache_mode=force_custom_plan`. A statement prepared by name there is parsed once per connection and planned
 * on each request with its values as constants: the months outside a range pruned, the planner's choice made for the
 * device and range asked. The same text unnamed on `pool` is parsed on every request, and prepared there it would get
 * one generic plan.
 * Made on first use; closePool(pool) closes it.
 */
export function plannedPerRequest(pool: pg.Pool): pg.Pool {
  const own = (pool as unknown as Record<symbol, pg.Pool | undefined>)[PLANNED_PER_REQUEST];
  if (own) return own;
  let sibling = siblings.get(pool);
  if (!sibling) {
    // Its idle connections never hold the process open: a caller that ends only `pool` still exits.
    sibling = connectionPool({ ...(pool.options as pg.PoolConfig), allowExitOnIdle: true }, 'force_custom_plan');
    siblings.set(pool, sibling);
  }
  return sibling;
}

/** Per pool, each open connection's end (closePool). */
const connectionsEnded = new WeakMap<pg.Pool, Set<Promise<void>>>();
const CLOSE_WAIT_MS = 5_000;

/**
 * Ends the pool and waits (at most a few seconds) until its connections have closed. pg-pool's end() resolves once
 * it has asked them to, so the embedded database stopped right after cut sessions still closing, and a LISTEN
 * client logged "terminating connection due to administrator command" at the end of a clean drain.
 */
export async function closePool(pool: pg.Pool): Promise<void> {
  const sibling = siblings.get(pool);
  siblings.delete(pool);
  if (sibling) await closePool(sibling);
  await pool.end();
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => { timer = setTimeout(resolve, CLOSE_WAIT_MS); });
  await Promise.race([Promise.all(connectionsEnded.get(pool) ?? []), bound]);
  clearTimeout(timer);
}

export async function databaseReady(pool: pg.Pool): Promise<boolean> {
  try {
    await pool.query('select 1');
    return true;
  } catch {
    return false;
  }
}
