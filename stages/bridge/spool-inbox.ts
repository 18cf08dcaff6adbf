// The spool inbox's files (spool-source.ts says how writers use it): listing them in name order, reading a
// batch (holding back a file still being written, settle.ts), removing them once published, and skipping a
// file that cannot be read or removed instead of looping on it.
import { readdir, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { ReceivedMessage } from './bridge.js';
import { errorText, type Log, type SourceStats } from './source.js';
import { SETTLE_MS, settling, type SeenState } from './settle.js';

export interface SpoolInbox {
  /** The names of the files to read now, in name order. */
  list(): Promise<string[]>;
  /** The messages of the files `names` that are whole (files gone, unreadable or still being written are left out). */
  read(names: string[]): Promise<ReceivedMessage[]>;
  /** Removes the files of a published batch. */
  remove(batch: ReceivedMessage[]): Promise<void>;
}

export function spoolInbox(dir: string, pollIntervalMs: number, stats: SourceStats, log: Log): SpoolInbox {
  /** Files that could not be read or removed: skipped (and logged once) until restart, instead of looping. */
  const skip = new Set<string>();
  /** Files that did not parse: how they looked and since when (settle.ts). */
  const unsettled = new Map<string, SeenState>();
  /** Held files are not read again before this time, so a file still being written is not re-read in a loop. */
  const notBefore = new Map<string, number>();

  const list = async (): Promise<string[]> => {
    const names = (await readdir(dir)).filter((name) => name.endsWith('.json') && !name.startsWith('.') && !skip.has(name));
    const present = new Set(names);
    for (const name of unsettled.keys()) if (!present.has(name)) { unsettled.delete(name); notBefore.delete(name); }
    const now = Date.now();
    return names.filter((name) => (notBefore.get(name) ?? 0) <= now).sort();
  };

  /** True when `body` is incomplete yet: it does not parse and its file changed within SETTLE_MS. */
  async function stillWriting(name: string, body: string): Promise<boolean> {
    try {
      JSON.parse(body);
      unsettled.delete(name);
      return false;
    } catch { /* below */ }
    let info;
    try {
      info = await stat(join(dir, name));
    } catch {
      return true; // gone or unreadable now: the next listing decides
    }
    const now = Date.now();
    const state: SeenState = { size: info.size, mtimeMs: info.mtimeMs, since: now };
    const seen = unsettled.get(name);
    const current = seen && seen.size === state.size && seen.mtimeMs === state.mtimeMs ? seen : state;
    if (!settling(current, now)) {
      unsettled.delete(name);
      notBefore.delete(name);
      return false;
    }
    unsettled.set(name, current);
    notBefore.set(name, now + Math.min(pollIntervalMs, SETTLE_MS));
    stats.held!++;
    return true;
  }

  const giveUp = (name: string, what: string, err: unknown) => {
    skip.add(name);
    stats.errors++;
    log('error', `spool file could not be ${what}; skipped until restart`, { file: join(dir, name), error: errorText(err) });
  };

  async function read(names: string[]): Promise<ReceivedMessage[]> {
    const bodies = await Promise.all(names.map(async (name) => {
      try {
        return await readFile(join(dir, name), 'utf8');
      } catch (err) {
        // Vanished between listing and reading (removed by someone else): nothing to do.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') giveUp(name, 'read', err);
        return null;
      }
    }));
    const batch: ReceivedMessage[] = [];
    for (const [i, name] of names.entries()) {
      const body = bodies[i];
      if (body === null || body === undefined || await stillWriting(name, body)) continue;
      batch.push({ messageId: name, body, source: 'spool' });
    }
    return batch;
  }

  async function remove(batch: ReceivedMessage[]): Promise<void> {
    await Promise.all(batch.map(async ({ messageId }) => {
      try {
        await unlink(join(dir, messageId));
        stats.deleted++;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
        // Left in place it would be published again on every pass.
        giveUp(messageId, 'removed after publish', err);
      }
    }));
  }

  return { list, read, remove };
}
