// Whether a database has every migration this release needs, read without changing anything: commands other
// than `faultline migrate` (and `start` on the embedded default or with MIGRATE_ON_START=1) refuse a database
// whose schema is behind rather than migrate it (docs/decisions.md#migrations-only-when-asked).
import type pg from 'pg';
import { migrationFiles } from './migrate.js';
import { FaultlineError } from '../errors/base.js';

/** Not retriable: the schema stays behind until someone runs `faultline migrate`. */
export class SchemaBehindError extends FaultlineError<'SCHEMA_BEHIND'> {
  constructor(readonly at: string | null, readonly needs: string, readonly missing: readonly string[]) {
    super('SCHEMA_BEHIND', `database schema is ${at === null ? 'empty (no migration applied)' : `at ${at}`}, this release needs ${needs}${missing.length > 1 ? ` (${missing.length} migrations missing)` : ''}: run \`faultline migrate\``, { retriable: false });
  }
}

/** The migrations of this release the database lacks (versions such as `0011_feeder_incidents`), in order. */
export async function missingMigrations(pool: pg.Pool): Promise<{ at: string | null; missing: string[]; latest: string }> {
  const versions = (await migrationFiles()).map((f) => f.slice(0, -4));
  const { rows } = await pool.query<{ version: string }>('select version from schema_migrations').catch(async (err: unknown) => {
    // A database no migration ever touched has no schema_migrations table.
    if ((err as { code?: string }).code === '42P01') return { rows: [] };
    throw err;
  });
  const applied = new Set(rows.map((r) => r.version));
  const at = [...applied].sort().at(-1) ?? null;
  return { at: at && at.slice(0, 4), missing: versions.filter((v) => !applied.has(v)), latest: versions.at(-1)!.slice(0, 4) };
}

/** Throws SchemaBehindError when a migration of this release is missing; reads only. */
export async function assertSchemaCurrent(pool: pg.Pool): Promise<void> {
  const { at, missing, latest } = await missingMigrations(pool);
  if (missing.length) throw new SchemaBehindError(at, latest, missing);
}
