#!/usr/bin/env node
// The `faultline` command. In a checkout the TypeScript sources run through tsx (no build step: the CLI,
// `npm start` and the tests execute the same files). An installed release holds no sources, only their
// JavaScript in dist/ (`npm run build`), which plain node runs: no tsx, no dev dependency
// (docs/decisions.md#a-release-an-operator-installs).
import { existsSync } from 'node:fs';

const source = new URL('../cli/main.ts', import.meta.url);
if (existsSync(source)) {
  const tsx = await import('tsx/esm/api').catch(() => null);
  if (!tsx) {
    // A checkout installed without its dev dependencies (`npm ci --omit=dev`): sources and nothing to run them.
    process.stderr.write('faultline: this checkout runs its TypeScript through tsx, a dev dependency: run `npm ci`, or install the release tarball (docs/operations.md#install)\n');
    process.exit(1);
  }
  tsx.register();
  await import(source.href);
} else {
  await import('../dist/cli/main.js');
}
