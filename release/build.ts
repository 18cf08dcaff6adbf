// `npm run build` (and `npm pack`, through prepack): the service as an installed release runs it, in dist/.
// tsc compiles everything cli/main.ts reaches (tsconfig.build.json) to JavaScript in the same folders, and the
// files the code reads at run time beside itself are copied to the same places relative to it, so every
// `new URL('../x', import.meta.url)` resolves in dist/ as in the checkout. bin/faultline.js runs dist/ where
// there are no sources (docs/decisions.md#a-release-an-operator-installs). npm pack then bundles node_modules'
// production packages (bundleDependencies): the build refuses a tree that is not the lockfile's.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ensurePortalBuilt } from '../portal/build.js';
import { driftFromLock, readLock } from './locked-tree.js';

const root = new URL('..', import.meta.url).pathname;
export const DIST = join(root, 'dist');

/** What the compiled code reads at run time from beside itself, relative to the repository (and to dist/). */
export const RUNTIME_FILES = [
  'schemas/migrations', // db/migrate.ts
  'schemas/config', // config/settings.ts (model map, code strings), cli/demo.ts (demo data)
  'infra/certs.sh', // cli/scada-tls.ts: the embedded default's development certificates
  'portal/dist', // api/portal-static.ts: the built portal
];

export async function build(): Promise<void> {
  const drift = driftFromLock(root, readLock(root));
  if (drift.length > 0) {
    throw new Error(`node_modules is not package-lock.json's tree, and the release would bundle it: run npm ci first\n  ${drift.join('\n  ')}`);
  }
  rmSync(DIST, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  await ensurePortalBuilt();
  for (const path of RUNTIME_FILES) {
    if (!existsSync(join(root, path))) throw new Error(`${path} is missing: the release would not run`);
    cpSync(join(root, path), join(DIST, path), { recursive: true, filter: (src) => !src.endsWith('.build-stamp') });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  build().then(
    () => console.log('build: the service compiled into dist/ with the files it reads at run time'),
    (err: unknown) => { console.error('build failed:', err); process.exitCode = 1; },
  );
}
