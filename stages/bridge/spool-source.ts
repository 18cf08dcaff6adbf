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
import { mkdir } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { TOPICS } from '../../schemas/avro/topics.js';
import { backoffDelay, type BackoffOptions } from '../../plumbing/retry.js';
import type { Transport } from '../runtime/transport/transport.js';
import { createBridge } from './bridge.js';
import { emptyStats, errorText, stderrLog, type Log, type Source, type SourceStats } from './source.js';
import { spoolInbox } from './spool-inbox.js';

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
  const inbox = spoolInbox(dir, pollIntervalMs, stats, log);
  let running = false;
  let loop: Promise<void> = Promise.resolve();
  let watcher: FSWatcher | null = null;
  let wake = new AbortController();
  /** Set by fs.watch: something changed since the last listing. */
  let dirty = false;
  let wakeIdle: (() => void) | null = null;
  const pause = (ms: number) => sleep(ms, undefined, { signal: wake.signal }).catch(() => {});

  /** Waits for fs.watch, the fallback poll or stop(), whichever is first. */
  const idle = () => new Promise<void>((resolve) => {
    if (dirty || !running) return resolve();
    const timer = setTimeout(done, pollIntervalMs);
    function done() { clearTimeout(timer); wakeIdle = null; resolve(); }
    wakeIdle = done;
  });

  async function run(): Promise<void> {
    // Names from the last listing not yet handled: a full directory is listed once, not once per batch.
    let pending: string[] = [];
    let failures = 0;
    while (running) {
      if (pending.length === 0) {
        dirty = false;
        try {
          pending = await inbox.list();
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
      const batch = await inbox.read(names);
      stats.received += batch.length;
      try {
        await bridge.forward(batch, async ({ published, deadLettered }) => {
          stats.published += published;
          stats.deadLettered += deadLettered;
          await inbox.remove(batch);
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
