// A fresh, migrated database per test file (and per benchmark run) on the infra/ Postgres, dropped at the
// end, so suites never see each other's rows.
import pg from 'pg';
import { infraEnv } from '../infra/endpoints.js';
import { migrate } from '../db/migrate.js';
import { closePool, createPool } from '../db/pool.js';
import { randomName } from './wait-for.js';

export interface TestDatabase {
  url: string;
  pool: pg.Pool;
  drop(): Promise<void>;
}

export function serverUrl(): string {
  return process.env.DATABASE_URL ?? infraEnv().DATABASE_URL!;
}

export async function createTestDatabase(prefix = 'test', { poolMax = 8, upTo }: { poolMax?: number; upTo?: string } = {}): Promise<TestDatabase> {
  const admin = new pg.Client({ connectionString: serverUrl() });
  await admin.connect();
  const name = randomName(`fl_${prefix}`).replace(/[^a-z0-9_]/g, '_');
  await admin.query(`create database ${name}`);
  await admin.end();
  return migrated(name, poolMax, upTo);
}

/** The named database's pool, migrated (up to `upTo`), with a drop that removes the database. */
async function migrated(name: string, poolMax: number, upTo?: string): Promise<TestDatabase> {
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  const pool = createPool({ connectionString: url.toString(), max: poolMax });
  await migrate(pool, { upTo });
  return {
    url: url.toString(),
    pool,
    async drop() {
      await closePool(pool);
      const c = new pg.Client({ connectionString: serverUrl() });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/**
 * A database an earlier run created and kept (a bench's `--keep`), opened again and migrated: the bench can
 * measure again without seeding again. Dropped by `drop()` like a fresh one.
 */
export async function openTestDatabase(name: string, { poolMax = 8 }: { poolMax?: number } = {}): Promise<TestDatabase> {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`not a test database name: ${name}`);
  return migrated(name, poolMax);
}

/** Every row of every faultline table, ordered, for before/after comparisons (replay, re-import). */
export async function dumpTables(pool: pg.Pool): Promise<Record<string, unknown[]>> {
  const { rows: tables } = await pool.query<{ table_name: string }>(
    // Partitioned tables once, by their parent (a partition's rows are the parent's).
    `select relname as table_name from pg_class
      where relnamespace = 'public'::regnamespace and relkind in ('r', 'p') and not relispartition order by relname`,
  );
  const dump: Record<string, unknown[]> = {};
  for (const { table_name } of tables) {
    const { rows } = await pool.query(`select * from "${table_name}" order by 1`);
    dump[table_name] = rows.map((r) => JSON.parse(JSON.stringify(r)));
  }
  return dump;
}
