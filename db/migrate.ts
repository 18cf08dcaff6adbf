// Applies schemas/migrations/NNNN_name.sql in order, each once, each in its own transaction. An advisory
// lock makes concurrent starts (several processes of one deployment) wait instead of racing. A migration whose
// first line is `-- faultline: no transaction` runs its statements one by one outside a transaction (CREATE
// INDEX CONCURRENTLY on a live table, which a transaction refuses); each of its statements must be safe to run
// again, since one cut short leaves the migration unrecorded.
import { readdir, readFile } from 'node:fs/promises';
import type pg from 'pg';
import { withTransactionOn } from './transaction.js';

const MIGRATIONS_DIR = new URL('../schemas/migrations/', import.meta.url);
const LOCK_ID = 0x6661756c; // "faul"
const NO_TRANSACTION = /^-- faultline: no transaction\n/;

/** The statements of a no-transaction migration: split at a `;` that ends a line (its statements hold no other). */
export const statementsOf = (sql: string): string[] =>
  sql.split(/;[ \t]*$/m).map((s) => s.replace(/^\s*--.*$/gm, '').trim()).filter(Boolean);

export interface MigrationResult { applied: string[]; alreadyApplied: number }

/** This release's migration files (`0011_feeder_incidents.sql`), in order; `upTo` ('0007') stops after that one. */
export async function migrationFiles({ upTo }: { upTo?: string } = {}): Promise<string[]> {
  return (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f) && (upTo === undefined || f.slice(0, 4) <= upTo)).sort();
}

/** One migration, recorded in schema_migrations with its last statement's success. */
async function apply(client: pg.PoolClient, file: string, sql: string): Promise<void> {
  const version = file.slice(0, -4);
  const record = () => client.query('insert into schema_migrations (version) values ($1)', [version]);
  const failed = (err: unknown) => new Error(`migration ${file} failed: ${(err as Error).message}`, { cause: err });
  if (NO_TRANSACTION.test(sql)) {
    try {
      for (const statement of statementsOf(sql)) await client.query(statement);
    } catch (err) {
      throw failed(err);
    }
    await record();
    return;
  }
  try {
    await withTransactionOn(client, async () => {
      await client.query(sql);
      await record();
    });
  } catch (err) {
    throw failed(err);
  }
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
      await apply(client, file, await readFile(new URL(file, MIGRATIONS_DIR), 'utf8'));
      applied.push(version);
    }
    return { applied, alreadyApplied: done.size };
  } finally {
    await client.query('select pg_advisory_unlock($1)', [LOCK_ID]).catch(() => {});
    client.release();
  }
}
