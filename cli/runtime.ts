// The pieces every command needs: settings, a database (URL or embedded), the pool, migrations. Each
// opened resource is registered for an orderly close, in reverse order.
import type pg from 'pg';
import { log } from '../config/log.js';
import { loadSettings, type Settings } from '../config/settings.js';
import { startEmbeddedPostgres } from '../db/embedded.js';
import { migrate } from '../db/migrate.js';
import { createPool } from '../db/pool.js';

export interface Runtime {
  settings: Settings;
  pool: pg.Pool;
  databaseUrl: string;
  embedded: boolean;
  onClose(fn: () => Promise<void>): void;
  close(): Promise<void>;
}

export async function openRuntime({ migrations = true }: { migrations?: boolean } = {}): Promise<Runtime> {
  const settings = loadSettings();
  const closers: (() => Promise<void>)[] = [];
  let databaseUrl = settings.databaseUrl;
  const embedded = databaseUrl === null;
  if (databaseUrl === null) {
    const db = await startEmbeddedPostgres({ dataDir: `${settings.dataDir}/postgres`, port: settings.embeddedPgPort, onLog: (line) => log.debug({ component: 'postgres' }, line) });
    closers.push(() => db.stop());
    databaseUrl = db.url;
  }
  const pool = createPool({ connectionString: databaseUrl, max: 16 });
  closers.push(() => pool.end());
  if (migrations) {
    const { applied } = await migrate(pool);
    if (applied.length) log.info({ applied }, 'database migrations applied');
  }
  return {
    settings, pool, databaseUrl, embedded,
    onClose: (fn) => { closers.push(fn); },
    async close() {
      for (const fn of closers.reverse()) await fn().catch((err: unknown) => log.warn({ err: (err as Error).message }, 'close failed'));
    },
  };
}
