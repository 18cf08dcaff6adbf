// Applies schemas/migrations/NNNN_name.sql in order, each once, each in its own transaction. An advisory
// lock makes concurrent starts (several processes of one deployment) wait instead of racing.
import { readdir, readFile } from 'node:fs/promises';
import type pg from 'pg';

const MIGRATIONS_DIR = new URL('../schemas/migrations/', import.meta.url);
const LOCK_ID = 0x6661756c; // "faul"

export interface MigrationResult { applied: string[]; alreadyApplied: number }

/** This release's migration files (`0011_feeder_incidents.sql`), in order; `upTo` ('0007') stops after that one. */
export async function migrationFiles({ upTo }: { upTo?: string } = {}): Promise<string[]> {
  return (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f) && (upTo === undefined || f.slice(0, 4) <= upTo)).sort();
}

/** `upTo` ('0007'): stop after that migration, for tests and benches that need an older schema. */
export async function migrate(pool: pg.Pool, { upTo }: { upTo?: string } = {}): Promise<MigrationResult> {
  const files = await migrationFiles({ upTo });
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [LOCK_ID]);
    await client.query('create table if not exists schema_migrations (version text primary key, applied_at timestamptz not null default now())');
    const done = new Set((await client.query<{ version: string }>('select version from schema_migrations')).rows.map((r) => r.version));
    const applied: string[] = [];
    for (const file of files) {
      const version = file.slice(0, -4);
      if (done.has(version)) continue;
      const sql = await readFile(new URL(file, MIGRATIONS_DIR), 'utf8');
      await client.query('begin');
      try {
        await client.query(sql);
        await client.query('insert into schema_migrations (version) values ($1)', [version]);
        await client.query('commit');
      } catch (err) {
        await client.query('rollback');
        throw new Error(`migration ${file} failed: ${(err as Error).message}`, { cause: err });
      }
      applied.push(version);
    }
    return { applied, alreadyApplied: done.size };
  } finally {
    await client.query('select pg_advisory_unlock($1)', [LOCK_ID]).catch(() => {});
    client.release();
  }
}
