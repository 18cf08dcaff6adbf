// Every transaction of the service begins, commits and rolls back here (docs/decisions.md#plumbing-written-once;
// test/structure/transactions.test.ts refuses a BEGIN/COMMIT/ROLLBACK sent anywhere else): begin, the work,
// commit; rollback when the work throws. The options are those the callers need, no more.
import type pg from 'pg';

export interface TransactionOptions {
  /** `repeatable read` for one consistent snapshot (the archive export); Postgres's default otherwise. */
  isolation?: 'read committed' | 'repeatable read' | 'serializable';
  readOnly?: boolean;
  /** SET LOCAL lock_timeout: wait this long for a lock, then fail (retention's drop; the next run tries again). */
  lockTimeoutMs?: number;
  /**
   * Called when the rollback after a failed work fails too: the connection's state is unknown. On a pool the
   * connection is then destroyed, not given back; a caller holding its own connection decides (see `onClient`).
   */
  onBrokenConnection?: (err: Error) => void;
}

/** What the work may do besides queries. */
export interface Transaction {
  /**
   * Sends `sql` (one or more statements) and the commit as one multi-statement query, one round trip (the
   * persist stage's merges, docs/benchmarks.md); the transaction ends there. The answer holds one result per
   * statement of `sql`, then the commit's.
   */
  commitWith(sql: string): Promise<pg.QueryResult[]>;
}

export type Work<T> = (client: pg.PoolClient, tx: Transaction) => Promise<T>;

export async function withTransaction<T>(pool: pg.Pool, work: Work<T>, options: TransactionOptions = {}): Promise<T> {
  return onPooled(pool, work, 'commit', options);
}

/**
 * The same, always rolled back: the work sees its own writes (counts, constraint checks) and none of them
 * stays. Identity sequences it advanced stay advanced (Postgres never rolls them back); no row changes.
 */
export async function withRolledBackTransaction<T>(pool: pg.Pool, work: Work<T>, options: TransactionOptions = {}): Promise<T> {
  return onPooled(pool, work, 'rollback', options);
}

/**
 * One transaction on a connection the caller holds and releases: one that carries session state across
 * transactions (an advisory lock, the persist stage's temporary staging tables, the migrations' lock).
 */
export async function withTransactionOn<T>(client: pg.PoolClient, work: Work<T>, options: TransactionOptions = {}): Promise<T> {
  return onClient(client, work, 'commit', options);
}

async function onPooled<T>(pool: pg.Pool, work: Work<T>, end: 'commit' | 'rollback', options: TransactionOptions): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    return await onClient(client, work, end, { ...options, onBrokenConnection: (err) => { broken = err; options.onBrokenConnection?.(err); } });
  } finally {
    client.release(broken);
  }
}

function beginSql(o: TransactionOptions): string {
  return ['begin', o.isolation && `isolation level ${o.isolation}`, o.readOnly && 'read only'].filter(Boolean).join(' ');
}

async function onClient<T>(client: pg.PoolClient, work: Work<T>, end: 'commit' | 'rollback', options: TransactionOptions): Promise<T> {
  let ended = false;
  const tx: Transaction = {
    async commitWith(sql) {
      const results = (await client.query(`${sql};\ncommit`)) as unknown as pg.QueryResult[];
      ended = true;
      return results;
    },
  };
  try {
    await client.query(beginSql(options));
    if (options.lockTimeoutMs !== undefined) await client.query(`set local lock_timeout = ${Math.max(1, Math.floor(options.lockTimeoutMs))}`);
    const result = await work(client, tx);
    if (!ended) await client.query(end);
    return result;
  } catch (err) {
    if (!ended) await client.query('rollback').catch((e: Error) => options.onBrokenConnection?.(e));
    throw err;
  }
}
