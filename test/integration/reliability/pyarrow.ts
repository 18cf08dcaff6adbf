// pyarrow from PyPI in one cached venv under .infra/reliability, pinned, installed on first use: a Parquet
// reader that is not ours (issue 43: the export must read back in one). Needs only python3 with venv.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

const PYARROW_VERSION = '18.1.0';
const root = new URL('../../../', import.meta.url).pathname;
const venv = join(root, '.infra', 'reliability', `venv-pyarrow-${PYARROW_VERSION}`);
const python = join(venv, 'bin', 'python');
const SCRIPT = new URL('./py/read_parquet.py', import.meta.url).pathname;

function run(cmd: string, args: string[], stdin?: string): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    child.on('close', (code) => resolve({ code: code ?? 1, out, err }));
    child.stdin.end(stdin ?? '');
  });
}

export async function ensurePyarrow(): Promise<void> {
  if (existsSync(python) && (await run(python, ['-c', 'import pyarrow; print(pyarrow.__version__)'])).out.trim() === PYARROW_VERSION) return;
  mkdirSync(join(root, '.infra', 'reliability'), { recursive: true });
  if ((await run('python3', ['-m', 'venv', '--clear', venv])).code !== 0) throw new Error('python3 -m venv failed');
  const pip = await run(join(venv, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', `pyarrow==${PYARROW_VERSION}`]);
  if (pip.code !== 0) throw new Error(`pip install pyarrow failed: ${pip.err}`);
}

export interface ParquetRead { columns: { name: string; type: string }[]; rowGroups: number; rows: Record<string, unknown>[] }

/** The file read by pyarrow: its columns with their Arrow types, row group count and rows. */
export async function readWithPyarrow(file: string): Promise<ParquetRead> {
  const r = await run(python, [SCRIPT, file]);
  if (r.code !== 0) throw new Error(`pyarrow could not read ${file}: ${r.err}`);
  return JSON.parse(r.out) as ParquetRead;
}
