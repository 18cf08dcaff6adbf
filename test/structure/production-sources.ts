// The sources the one-owner and transaction rules read (test/structure/one-owner.test.ts, transactions.test.ts):
// every .ts and .tsx file of the repository but tests, benches, the build output and what git and npm hold.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export const root = new URL('../..', import.meta.url).pathname;
const SKIP = new Set(['node_modules', 'test', 'dist', 'bench']);

/** Repository-relative paths of those sources. */
export function productionSources(dir = root): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name) || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...productionSources(path));
    else if (/\.tsx?$/.test(name)) out.push(relative(root, path));
  }
  return out;
}
