// Python test tools (zeep and its lxml, from PyPI) in one cached venv under .infra/multispeak, pinned,
// installed on first use; the suites need only python3 with venv on the machine.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const ZEEP_VERSION = '4.3.1';
const LXML_VERSION = '6.1.3';
const root = new URL('../../', import.meta.url).pathname;
const venv = join(root, '.infra', 'multispeak', `venv-zeep-${ZEEP_VERSION}`);
export const python = join(venv, 'bin', 'python');
export const PY_DIR = new URL('./py/', import.meta.url).pathname;
/** No __pycache__ beside the scripts in the work tree. */
export const PY_ENV = { ...process.env, PYTHONDONTWRITEBYTECODE: '1' };
/** Our reference WSDLs: the official MultiSpeak documents' facts for what faultline sends and serves (wsdl/README.md). */
export const WSDL_DIR = new URL('./wsdl/', import.meta.url).pathname;

function run(cmd: string, args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('close', (code) => resolve(code ?? 1));
  });
}

export async function ensurePython(): Promise<string> {
  const probe = existsSync(python) ? spawnSync(python, ['-c', 'import zeep, lxml; print(zeep.__version__)'], { encoding: 'utf8' }) : null;
  if (probe?.stdout.trim() === ZEEP_VERSION) return python;
  mkdirSync(join(root, '.infra', 'multispeak'), { recursive: true });
  if (await run('python3', ['-m', 'venv', '--clear', venv]) !== 0) throw new Error('python3 -m venv failed');
  if (await run(join(venv, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', `zeep==${ZEEP_VERSION}`, `lxml==${LXML_VERSION}`]) !== 0) throw new Error('pip install zeep failed');
  return python;
}

/** Runs a script of py/ with JSON on stdin; resolves its stdout parsed as JSON. */
export function runPythonJson<T>(script: string, input: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [join(PY_DIR, script)], { cwd: PY_DIR, env: PY_ENV, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${script} exited ${code}: ${err}`));
      try { resolve(JSON.parse(out) as T); } catch { reject(new Error(`${script}: not JSON: ${out.slice(0, 500)} ${err}`)); }
    });
    child.stdin.end(JSON.stringify(input));
  });
}
