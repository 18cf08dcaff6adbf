// Running commands as a user types them, somewhere other than this checkout: the suites that install faultline
// elsewhere share these (stands-alone.test.ts: a copy of HEAD; release.test.ts: the packed tarball).
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Runs a command in `cwd`, output kept (for the assertion that shows it when it fails); resolves its exit code and output. */
export function runCommand(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => { output += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { output += d.toString(); });
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), output }));
  });
}

/**
 * A new empty temporary directory others may enter. mkdtemp makes it private (0700); as root the embedded
 * PostgreSQL runs as the `postgres` user, which must reach the binaries in an install's node_modules
 * (db/embedded.ts), as in an install under /opt or /srv.
 */
export function openTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  return dir;
}
