// One transaction on one pooled connection: begin, the work, commit; rollback when the work throws.
import type pg from 'pg';

export async function withTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(pool, work, 'commit');
}

/**
 * The same, always rolled back: the work sees its own writes (counts, constraint checks) and none of them
 * stays. Identity sequences it advanced stay advanced (Postgres never rolls them back); no row changes.
 */
export async function withRolledBackTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(pool, work, 'rollback');
}

async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>, end: 'commit' | 'rollback'): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query(end);
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
