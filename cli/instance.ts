// One `faultline start` per embedded data directory. A second one would start a second API, simulator and
// pipeline on the same database and ports; it is refused with a sentence saying what to do instead. Other
// commands (import, replay, ...) run beside it and use its database (db/embedded.ts).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const alive = (pid: number): boolean => {
  try { return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('faultline'); } catch { return false; }
};

/** Claims `dataDir` for this process until the returned release runs (or the process dies). */
export function claimDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'faultline.pid');
  try {
    writeFileSync(file, `${process.pid}\n`, { flag: 'wx' }); // atomic: of two starts racing, one creates it
  } catch {
    const other = Number(readFileSync(file, 'utf8').trim());
    if (Number.isInteger(other) && other !== process.pid && alive(other)) {
      throw new Error(`faultline is already running on ${dataDir} (pid ${other}): use that instance (commands such as \`faultline import\` work beside it), stop it with Ctrl-C first, or give this one another DATA_DIR`);
    }
    writeFileSync(file, `${process.pid}\n`); // left by a process that died
  }
  return () => {
    try { if (Number(readFileSync(file, 'utf8').trim()) === process.pid) rmSync(file); } catch { /* already gone */ }
  };
}
