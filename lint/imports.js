// The relative imports of the production code, read from the files on disk: what the inner-floor rule
// (lint/floors.js) walks to find a circle between the rooms of a folder, and what `npm run house`
// (support/house.ts) draws. Plain JavaScript, as eslint.config.js loads it without a TypeScript loader.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Folders that are not production code: tests, benches, the release build, the browser app, the lint rules. */
export const NOT_PRODUCTION = new Set(['test', 'bench', 'dist', 'release', 'portal', 'docs', 'ops', 'lint', 'support', 'bin']);

/** Every production .ts file, as a path from the repository root, sorted. */
export function productionFiles(dir = ROOT) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith('.') || (dir === ROOT && NOT_PRODUCTION.has(name)) || name === 'node_modules') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...productionFiles(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts') && dir !== ROOT) out.push(relative(ROOT, path));
  }
  return out;
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)(['"])(\.{1,2}\/[^'"]+)\1/gm;

/** The repository paths (.ts) that the relative imports of `source` (the text of `file`) name. */
export function importsIn(file, source) {
  const out = new Set();
  for (const m of source.matchAll(SPECIFIER)) out.add(toTs(resolveFrom(file, m[2])));
  return [...out];
}

/** `spec` imported by `file` (both from the root), as a path from the root. */
export function resolveFrom(file, spec) {
  return relative(ROOT, normalize(resolve(ROOT, dirname(file), spec)));
}

const toTs = (path) => (path.endsWith('.js') && existsSync(join(ROOT, path.slice(0, -3) + '.ts')) ? path.slice(0, -3) + '.ts' : path);

const cache = new Map();
/** The relative imports of a file on disk (cached for one lint run). */
export function importsOf(file) {
  if (!cache.has(file)) {
    const path = join(ROOT, file);
    cache.set(file, existsSync(path) ? importsIn(file, readFileSync(path, 'utf8')) : []);
  }
  return cache.get(file);
}
