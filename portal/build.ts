// `npm run build:portal`: builds portal/ into portal/dist with Vite, but only when the sources changed since
// the last build (a stamp file records the newest source time), so `npm start` and the browser tests can
// call it every time and pay ~4 s only after an edit. `--force` always builds.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('.', import.meta.url).pathname;
const dist = join(root, 'dist');
const stamp = join(dist, '.build-stamp');
const INPUTS = ['src', 'index.html', 'vite.config.ts', 'tsconfig.json', '../package-lock.json'];

function newest(path: string): number {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return readdirSync(path).reduce((m, name) => Math.max(m, newest(join(path, name))), s.mtimeMs);
}

/** Builds when portal/dist is missing or older than its sources; returns whether it built. */
export async function ensurePortalBuilt({ force = false } = {}): Promise<boolean> {
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
