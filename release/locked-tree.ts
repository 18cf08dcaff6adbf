// The release carries its production dependencies inside the tarball (package.json `bundleDependencies`), so an
// operator installs the lockfile's exact versions and not whatever the ranges allow on the day
// (docs/decisions.md#installed-dependencies-pinned). npm pack copies node_modules as it finds it: this checks that
// what it finds is the lockfile's tree, before packing (release/build.ts) and after installing
// (test/structure/release.test.ts).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface LockEntry { version?: string; dev?: boolean; optional?: boolean; devOptional?: boolean; link?: boolean }
export interface LockFile { packages: Record<string, LockEntry> }

export function readLock(root: string): LockFile {
  return JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as LockFile;
}

/**
 * Every production package of the lockfile (`node_modules/...` paths, dev-only ones left out) whose installed copy
 * under `dir` has another version, or is missing (an optional one, another platform's, may be). Empty: the tree
 * under `dir` is the lockfile's.
 *
 * @example
 *   driftFromLock(root, readLock(root)) // ['node_modules/pg: 8.24.0 installed, the lockfile has 8.23.1']
 */
export function driftFromLock(dir: string, lock: LockFile): string[] {
  const drift: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path.startsWith('node_modules/') || entry.dev || entry.link) continue;
    const manifest = join(dir, path, 'package.json');
    if (!existsSync(manifest)) {
      if (!entry.optional && !entry.devOptional) drift.push(`${path}: missing`);
      continue;
    }
    const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string };
    if (version !== entry.version) drift.push(`${path}: ${version ?? 'no version'} installed, the lockfile has ${entry.version ?? 'none'}`);
  }
  return drift;
}

// `node --import tsx release/locked-tree.ts <dir>`: the drift of the tree under <dir> from this checkout's
// lockfile, one line each, exit 1 when there is any (test/structure/release.test.ts runs it on the installed release).
if (import.meta.url === `file://${process.argv[1]}`) {
  const root = new URL('..', import.meta.url).pathname;
  const drift = driftFromLock(process.argv[2] ?? root, readLock(root));
  for (const line of drift) console.log(line);
  process.exitCode = drift.length > 0 ? 1 : 0;
}
