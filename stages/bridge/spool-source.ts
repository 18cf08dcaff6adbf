// The spool-directory source: the embedded default's queue (`npm start` with no SQS_QUEUE_URL). Each
// `*.json` file in the inbox is one queue message, its name the message id. Files are taken in name order,
// up to 10 per batch (like an SQS receive), and removed only after the bridge's send resolved.
//
// Writers write `<name>.tmp` (or a dotfile) and rename it to `<name>.json`: a rename is atomic, so the source
// never reads half a file. Names that sort in write order (a zero-padded counter or timestamp) keep each
// device's messages in order. A writer that writes `<name>.json` in place anyway loses nothing either: a file
// that does not parse and changed within the last second (settle.ts) is still being written, so it is read
// again on a later pass instead of being dead-lettered as MALFORMED.
//
// fs.watch wakes the loop at once; a 100 ms poll backs it up, because fs.watch misses events on some file
// systems (network mounts, some containers).
import { watch, type FSWatcher } from 'node:fs';
import { mkdir, readdir, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { TOPICS } from '../../schemas/avro/topics.js';
import { backoffDelay, type BackoffOptions } from '../../plumbing/retry.js';
import type { Transport } from '../runtime/transport/transport.js';
import { createBridge, type ReceivedMessage } from './bridge.js';
import { emptyStats, errorText, stderrLog, type Log, type Source, type SourceStats } from './source.js';
import { SETTLE_MS, settling, type SeenState } from './settle.js';

export interface SpoolSourceOptions {
  transport: Transport;
  /** The inbox (Settings.inboxDir, INBOX_DIR); created when missing. */
  dir: string;
  /** Files per publish. Default 10, as an SQS receive. */
  batchSize?: number;
  /** Fallback poll of the directory when fs.watch says nothing. Default 100 ms (spec 8). */
  pollIntervalMs?: number;
  /** Body size limit of the bridge core. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Back-off after failed publishes and listings. */
  backoff?: BackoffOptions;
  log?: Log;
}

/**
 * @example
 *   const source = spoolSource({ transport, dir: settings.inboxDir });
 *   await source.start();
 */
export function spoolSource(options: SpoolSourceOptions): Source {
  const { transport, dir, batchSize = 10, pollIntervalMs = 100, maxBodyBytes, backoff = { initialMs: 200, maxMs: 10_000 }, log = stderrLog } = options;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
  const bridge = createBridge({ producer: transport.producer(), ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }) });

  const stats: SourceStats = { ...emptyStats(), held: 0 };
  let running = false;
  let loop: Promise<void> = Promise.resolve();
  let watcher: FSWatcher | null = null;
  let wake = new AbortController();
  /** Set by fs.watch: something changed since the last listing. */
  let dirty = false;
  let wakeIdle: (() => void) | null = null;
  /** Files that could not be read or removed: skipped (and logged once) until restart, instead of looping. */
  const skip = new Set<string>();
  /** Files that did not parse: how they looked and since when (settle.ts). */
  const unsettled = new Map<string, SeenState>();
  /** Held files are not read again before this time, so a file still being written is not re-read in a loop. */
  const notBefore = new Map<string, number>();

  const pause = (ms: number) => sleep(ms, undefined, { signal: wake.signal }).catch(() => {});

  /** Waits for fs.watch, the fallback poll or stop(), whichever is first. */
  const idle = () => new Promise<void>((resolve) => {
    if (dirty || !running) return resolve();
    const timer = setTimeout(done, pollIntervalMs);
    function done() { clearTimeout(timer); wakeIdle = null; resolve(); }
    wakeIdle = done;
  });

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

  async function run(): Promise<void> {
    // Names from the last listing not yet handled: a full directory is listed once, not once per batch.
    let pending: string[] = [];
    let failures = 0;
    while (running) {
      if (pending.length === 0) {
        dirty = false;
        try {
          pending = await list();
        } catch (err) {
          failures++;
          stats.errors++;
          log('warn', 'spool directory could not be listed; backing off', { dir, attempt: failures, error: errorText(err) });
          await pause(backoffDelay(failures, backoff));
          continue;
        }
        if (pending.length === 0) {
          await idle();
          continue;
        }
      }
      const names = pending.slice(0, batchSize);
      const batch = await read(names);
      stats.received += batch.length;
      try {
        await bridge.forward(batch, async ({ published, deadLettered }) => {
          stats.published += published;
          stats.deadLettered += deadLettered;
          await remove(batch);
        });
        pending = pending.slice(names.length);
        failures = 0;
      } catch (err) {
        // The files stay; the same batch is read and sent again after the pause.
        failures++;
        stats.errors++;
        log('warn', 'publish failed; the spool files stay and are sent again', { count: batch.length, attempt: failures, error: errorText(err) });
        await pause(backoffDelay(failures, backoff));
      }
    }
  }

  return {
    async start() {
      if (running) return;
      await mkdir(dir, { recursive: true });
      // Like the stage runner: the topics exist before the first publish (Kafka does not auto-create them).
      await transport.ensureTopics([TOPICS.raw, TOPICS.dlq]);
      running = true;
      wake = new AbortController();
      try {
        watcher = watch(dir, { persistent: false }, () => { dirty = true; wakeIdle?.(); });
        watcher.on('error', (err) => {
          log('warn', 'fs.watch failed; polling only', { dir, error: errorText(err) });
          watcher?.close();
          watcher = null;
        });
      } catch (err) {
        log('warn', 'fs.watch unavailable; polling only', { dir, error: errorText(err) });
      }
      loop = run();
    },
    async stop() {
      if (!running) return;
      running = false;
      wake.abort();
      wakeIdle?.();
      watcher?.close();
      watcher = null;
      await loop;
    },
    stats: (): SourceStats => ({ ...stats }),
  };
}
