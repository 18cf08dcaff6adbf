// The pieces every command needs: settings, a database (URL or embedded), the pool, the schema check. Each
// opened resource is registered for an orderly close, in reverse order. Migrations are applied only when asked
// (docs/decisions.md#migrations-only-when-asked): `faultline migrate`, and `start` on the embedded default or
// with MIGRATE_ON_START=1; every other command refuses a schema older than this release (SchemaBehindError, exit 4).
import type pg from 'pg';
import { log } from '../config/log.js';
import { loadSettings, type Settings } from '../config/settings.js';
import { embeddedPasswordFile, startEmbeddedPostgres } from '../db/embedded.js';
import { migrate } from '../db/migrate.js';
import { closePool, createPool } from '../db/pool.js';
import { assertSchemaCurrent } from '../db/schema-version.js';
import { SecretsError } from '../secrets/errors.js';
import { loadKeyring, type Keyring } from '../secrets/keyring.js';
import { claimDataDir } from './instance.js';

export interface Runtime {
  settings: Settings;
  pool: pg.Pool;
  databaseUrl: string;
  embedded: boolean;
  onClose(fn: () => Promise<void>): void;
  close(): Promise<void>;
  /**
   * The process's keyring for stored secrets (MultiSpeak credentials, webhook secrets), loaded once on first use
   * and shared by every component; `keyring` null with the `problem` (said once in the log) when none can be loaded:
   * the workers still run and what needs a secret waits, visibly, in its outbox.
   */
  keyring(): { keyring: Keyring | null; problem: SecretsError | null };
}

export interface RuntimeOptions {
  /**
   * 'check' (the default): refuse a database whose schema is older than this release, changing nothing;
   * 'migrate': apply what is missing; 'start': migrate on the embedded default or with MIGRATE_ON_START=1,
   * else check; 'none': leave the schema alone (`faultline migrate` does the work itself).
   */
  schema?: 'check' | 'migrate' | 'start' | 'none';
  /** `faultline start` on the embedded default: the one instance on its data directory (cli/instance.ts). */
  exclusive?: boolean;
  /** Settings already read (`faultline start` reads them before anything opens); else read here. */
  settings?: Settings;
}

export async function openRuntime({ schema = 'check', exclusive = false, settings = loadSettings() }: RuntimeOptions = {}): Promise<Runtime> {
  const closers: (() => Promise<void>)[] = [];
  let databaseUrl = settings.databaseUrl;
  const embedded = databaseUrl === null;
  if (databaseUrl === null) {
    if (exclusive) {
      const release = claimDataDir(settings.dataDir);
      closers.push(async () => release());
    }
    const db = await startEmbeddedPostgres({ dataDir: `${settings.dataDir}/postgres`, port: settings.embeddedPgPort, passwordFile: embeddedPasswordFile(settings.dataDir), onLog: (line) => log.debug({ component: 'postgres' }, line) });
    closers.push(() => db.stop());
    databaseUrl = db.url;
    if (db.sharedWith) log.info({ pid: db.sharedWith.pid }, `using the embedded database already running on ${settings.dataDir}`);
  }
  const pool = createPool({ connectionString: databaseUrl, max: 16 });
  closers.push(() => closePool(pool));
  const close = async () => {
    for (const fn of closers.reverse()) await fn().catch((err: unknown) => log.warn({ err: (err as Error).message }, 'close failed'));
  };
  try {
    if (schema === 'migrate' || (schema === 'start' && (embedded || settings.migrateOnStart))) {
      const { applied } = await migrate(pool);
      if (applied.length) log.info({ applied }, 'database migrations applied');
    } else if (schema !== 'none') {
      await assertSchemaCurrent(pool);
    }
  } catch (err) {
    await close();
    throw err;
  }
  let loaded: ReturnType<Runtime['keyring']> | undefined;
  const keyring = (): ReturnType<Runtime['keyring']> => {
    if (loaded) return loaded;
    try {
      loaded = { keyring: loadKeyring({ configured: settings.secretKeys, dataDir: settings.dataDir, embedded, onLog: (line) => log.warn({ component: 'secrets' }, line) }), problem: null };
    } catch (err) {
      if (!(err instanceof SecretsError)) throw err;
      log.error({ component: 'secrets', code: err.code }, `stored secrets cannot be sealed or opened (MultiSpeak credentials and webhook secrets wait in their outboxes): ${err.message}`);
      loaded = { keyring: null, problem: err };
    }
    return loaded;
  };
  return {
    settings, pool, databaseUrl, embedded,
    onClose: (fn) => { closers.push(fn); },
    close, keyring,
  };
}
