// The spool-directory source: the embedded default's queue (`npm start` with no SQS_QUEUE_URL). Each
// `*.json` file in the inbox is one queue message, its name the message id. Files are taken in name order,
// up to 10 per batch (like an SQS receive), and removed only after the bridge's durable send resolved: on
// Kafka once the broker has the records, in-process once the pipeline committed them (docs/pipeline.md#the-in-process-transport).
// That takes a whole pass of the pipeline, so in-process several batches are in flight at once (their records
// still appended in name order); on Kafka one at a time, so a failed send is retried before anything after it.
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
import { createBridge, type ReceivedMessage } from './bridge.js';
import { emptyStats, errorText, stderrLog, type Log, type Source, type SourceStats } from './source.js';
import { spoolInbox } from './spool-inbox.js';

/** In-process, a thousand files waiting for the pipeline keep its batches full (the chain reads up to 500 a partition). */
const IN_PROCESS_IN_FLIGHT = 100;

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
  /** Batches published and not yet acknowledged at once. Default: 100 in-process, 1 on Kafka. */
  inFlightBatches?: number;
  log?: Log;
}

/** Batches published and not yet acknowledged, their files (a listing leaves those out) and the first failure. */
function inFlight() {
  const sending = new Set<Promise<void>>();
  const names = new Set<string>();
  let failure: { error: unknown; count: number } | null = null;
  return {
    has: (name: string) => names.has(name),
    get size() { return sending.size; },
    get failed() { return failure !== null; },
    add(batch: ReceivedMessage[], send: () => Promise<void>): void {
      for (const m of batch) names.add(m.messageId);
      const sent: Promise<void> = send().catch((error: unknown) => {
        failure ??= { error, count: 0 };
        failure.count += batch.length;
      }).finally(() => {
        for (const m of batch) names.delete(m.messageId);
        sending.delete(sent);
      });
      sending.add(sent);
    },
    /** The failure since the last call, and how many files it left in place. */
    takeFailure() {
      const f = failure;
      failure = null;
      return f;
    },
    one: () => Promise.race(sending),
    settled: async () => { await Promise.all(sending); },
  };
}

/**
 * @example
 *   const source = spoolSource({ transport, dir: settings.inboxDir });
 *   await source.start();
 */
export function spoolSource(options: SpoolSourceOptions): Source {
  const { transport, dir, batchSize = 10, pollIntervalMs = 100, maxBodyBytes, backoff = { initialMs: 200, maxMs: 10_000 }, log = stderrLog } = options;
  const { inFlightBatches = transport.kind === 'memory' ? IN_PROCESS_IN_FLIGHT : 1 } = options;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
  if (!Number.isInteger(inFlightBatches) || inFlightBatches < 1) throw new RangeError(`inFlightBatches must be a positive integer, got ${inFlightBatches}`);
  const bridge = createBridge({ producer: transport.producer({ durable: true }), ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }) });

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

  const flight = inFlight();
  /** Failed publishes and listings in a row: the back-off grows with them. */
  let failures = 0;

  /** Publishes one batch without waiting for it; its files are removed once the durable send resolved. */
  const publish = (batch: ReceivedMessage[]) => flight.add(batch, async () => {
    await bridge.forward(batch, async ({ published, deadLettered }) => {
      stats.published += published;
      stats.deadLettered += deadLettered;
      await inbox.remove(batch);
    });
    failures = 0;
  });

  async function run(): Promise<void> {
    // Names from the last listing not yet handled: a full directory is listed once, not once per batch.
    let pending: string[] = [];
    while (running) {
      if (flight.failed) {
        // The files stay; once every batch in flight settled, the directory is listed again and they are sent
        // again in name order, after the pause.
        await flight.settled();
        const failed = flight.takeFailure()!;
        failures++;
        stats.errors++;
        log('warn', 'publish failed; the spool files stay and are sent again', { count: failed.count, attempt: failures, error: errorText(failed.error) });
        pending = [];
        await pause(backoffDelay(failures, backoff));
        continue;
      }
      if (pending.length === 0) {
        dirty = false;
        try {
          pending = (await inbox.list()).filter((name) => !flight.has(name));
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
      if (flight.size >= inFlightBatches) {
        await flight.one();
        continue;
      }
      const names = pending.slice(0, batchSize);
      pending = pending.slice(names.length);
      const batch = await inbox.read(names);
      stats.received += batch.length;
      if (batch.length === 0) continue;
      publish(batch);
    }
    await flight.settled();
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
