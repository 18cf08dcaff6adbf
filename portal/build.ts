// `npm run build:portal`: builds portal/ into portal/dist with Vite, but only when the sources changed since
// the last build (a stamp file records the newest source time), so `npm start` and the browser tests can
// call it every time and pay ~4 s only after an edit. `--force` always builds.
// One build at a time across processes (a lock file holding the builder's pid): the test runner runs a suite that
// packs the release (which builds the portal) beside the browser suites (docs/decisions.md#ci-time-two-lanes), and
// Vite empties portal/dist before it writes it.
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const root = new URL('.', import.meta.url).pathname;
const dist = join(root, 'dist');
const stamp = join(dist, '.build-stamp');
const buildLock = join(root, '.build-lock');
const INPUTS = ['src', 'index.html', 'vite.config.ts', 'tsconfig.json', '../package-lock.json'];

function newest(path: string): number {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return readdirSync(path).reduce((m, name) => Math.max(m, newest(join(path, name))), s.mtimeMs);
}

const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch (err) { return (err as NodeJS.ErrnoException).code === 'EPERM'; } };

/** The pid in a lock file; 0 while it is being written or once it is gone. */
function lockHolder(lock: string): number {
  try { return Number(readFileSync(lock, 'utf8')) || 0; } catch { return 0; }
}

/** Runs `work` holding the build lock (`lock`: another file, for test/portal/build-lock); a lock whose process is gone is taken over. */
export async function holdingBuildLock<T>(work: () => Promise<T>, lock = buildLock): Promise<T> {
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = lockHolder(lock);
      if (holder > 0 && !alive(holder)) rmSync(lock, { force: true });
      else await sleep(200);
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { force: true });
  }
}

/** Builds when portal/dist is missing or older than its sources; returns whether it built. */
export function ensurePortalBuilt({ force = false } = {}): Promise<boolean> {
  return holdingBuildLock(() => buildIfStale(force));
}

async function buildIfStale(force: boolean): Promise<boolean> {
  const sourceTime = INPUTS.map((p) => join(root, p)).filter(existsSync).reduce((m, p) => Math.max(m, newest(p)), 0);
  const built = existsSync(stamp) && existsSync(join(dist, 'index.html')) ? Number(readFileSync(stamp, 'utf8')) : -1;
  if (!force && built >= sourceTime) return false;
  const { build } = await import('vite');
  await build({ configFile: join(root, 'vite.config.ts'), logLevel: 'warn' });
  writeFileSync(stamp, String(sourceTime));
  return true;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const force = process.argv.includes('--force');
  ensurePortalBuilt({ force }).then(
    (built) => console.log(built ? 'portal: built into portal/dist' : 'portal: portal/dist is up to date'),
    (err: unknown) => { console.error('portal: build failed:', err); process.exitCode = 1; },
  );
}
