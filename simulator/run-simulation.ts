// `faultline simulate`: a fleet (fleet.ts) writing to a queue at a steady rate, for a count or a duration,
// with a progress line every second. The CLI wraps `simulate`; benchmarks and tests call it directly.
//
// Timeline: check-in dates follow the wall clock. Each device checks in every `devices / rate` seconds
// (at least 1 s, so its dates never repeat: the pipeline would take a repeat for a duplicate check-in),
// starting now; EventIDs start from a number that grows with the start time, so a second run against the
// same database writes new check-ins and new events instead of duplicates.
import { setTimeout as sleep } from 'node:timers/promises';
import { createFleet, type FleetOptions } from './fleet.js';
import type { OutgoingMessage, Sink } from './sink.js';
import { spoolSink } from './spool-sink.js';
import { sqsSink } from './sqs-sink.js';

export const DEFAULT_INBOX_DIR = '.data/inbox';
const EPOCH_2020 = Date.UTC(2020, 0, 1);
/** SendMessageBatch maximum; also the spool writer's batch. */
const BATCH = 10;

export interface SimulateOptions extends FleetOptions {
  /** Messages per second; Infinity: as fast as the sink takes them. */
  rate: number;
  /** Stop after this many messages. */
  count?: number;
  /** Stop after this many seconds. Without count and duration: until `signal` aborts. */
  durationSec?: number;
  to: 'spool' | 'sqs';
  /** Spool sink: the inbox (Settings.inboxDir, INBOX_DIR). Default .data/inbox. */
  inboxDir?: string;
  /** SQS sink: Settings.queue (SQS_QUEUE_URL, SQS_ENDPOINT, AWS_REGION). */
  queueUrl?: string;
  endpoint?: string;
  region?: string;
  /** Sink writes in flight at once. Default 4. */
  concurrency?: number;
  signal?: AbortSignal;
  /** A sink to use instead of the one `to` names (tests). */
  sink?: Sink;
}

export interface SimulationProgress {
  /** Messages the sink accepted so far. */
  sent: number;
  elapsedMs: number;
  /** Messages per second over the last progress interval (the whole run in the final report). */
  rate: number;
  /** count, or rate x duration when known. */
  target: number | null;
  done: boolean;
}

/** The progress line: `sent 1200/5000  rate 400.0 msg/s  elapsed 3.0 s`. */
export function formatProgress({ sent, target, rate, elapsedMs, done }: SimulationProgress): string {
  return `${done ? 'done: ' : ''}sent ${sent}${target === null ? '' : `/${target}`}  rate ${rate.toFixed(1)} msg/s  elapsed ${(elapsedMs / 1000).toFixed(1)} s`;
}

const printProgress = (p: SimulationProgress) => { process.stderr.write(`${formatProgress(p)}\n`); };

/**
 * @example
 *   await simulate({ devices: 100, rate: 200, count: 10_000, to: 'spool' }, (p) => console.log(formatProgress(p)));
 */
export async function simulate(options: SimulateOptions, onProgress: (progress: SimulationProgress) => void = printProgress): Promise<SimulationProgress> {
  const { rate, count, durationSec, concurrency = 4, signal } = options;
  if (!(rate > 0)) throw new RangeError(`rate must be positive, got ${rate}`);
  if (count !== undefined && !(Number.isInteger(count) && count >= 0)) throw new RangeError(`count must be a non-negative integer, got ${count}`);
  if (durationSec !== undefined && !(durationSec > 0)) throw new RangeError(`durationSec must be positive, got ${durationSec}`);

  const startTime = options.startTime ?? Math.floor(Date.now() / 1000) * 1000;
  const devices = options.imeis?.length ?? options.devices ?? 10;
  const fleet = createFleet({
    ...options,
    startTime,
    intervalMs: options.intervalMs ?? Math.max(1, Math.round(devices / (Number.isFinite(rate) ? rate : devices))) * 1000,
    firstEventId: options.firstEventId ?? Math.floor((startTime - EPOCH_2020) / 10),
  });
  const sink = options.sink ?? await openSink(options);
  const runId = String(startTime).padStart(13, '0');

  const limit = count ?? (durationSec !== undefined && Number.isFinite(rate) ? Math.round(rate * durationSec) : Infinity);
  const target = Number.isFinite(limit) ? limit : null;
  const started = performance.now();
  const deadline = durationSec === undefined ? Infinity : started + durationSec * 1000;
  let issued = 0;
  let sent = 0;
  let failure: unknown = null;
  const inflight = new Set<Promise<void>>();

  let lastSent = 0;
  let lastAt = started;
  const ticker = setInterval(() => {
    const at = performance.now();
    onProgress({ sent, elapsedMs: at - started, rate: ((sent - lastSent) * 1000) / (at - lastAt), target, done: false });
    lastSent = sent;
    lastAt = at;
  }, 1000);

  try {
    while (issued < limit && !signal?.aborted && failure === null) {
      const now = performance.now();
      if (now >= deadline) break;
      // Messages due by now at the requested rate (the first one at once).
      const due = Number.isFinite(rate) ? Math.floor((rate * (now - started)) / 1000) + 1 : Infinity;
      const n = Math.min(BATCH, due - issued, limit - issued);
      if (n <= 0) {
        const nextDueAt = started + (issued * 1000) / rate;
        await sleep(Math.max(1, Math.min(nextDueAt - now, deadline - now)), undefined, signal ? { signal } : {}).catch(() => {});
        continue;
      }
      const batch: OutgoingMessage[] = [];
      for (let i = 0; i < n; i++) {
        const { sequence, message } = fleet.next();
        batch.push({ name: `sim-${runId}-${String(sequence).padStart(10, '0')}`, body: JSON.stringify(message) });
      }
      issued += n;
      const write = sink.write(batch).then(() => { sent += n; }, (err: unknown) => { failure ??= err; });
      inflight.add(write);
      void write.finally(() => inflight.delete(write));
      if (inflight.size >= concurrency) await Promise.race(inflight);
    }
    await Promise.all(inflight);
  } finally {
    clearInterval(ticker);
    if (!options.sink) await sink.close();
  }
  if (failure !== null) throw failure;
  const elapsedMs = performance.now() - started;
  const final: SimulationProgress = { sent, elapsedMs, rate: elapsedMs > 0 ? (sent * 1000) / elapsedMs : 0, target, done: true };
  onProgress(final);
  return final;
}

/**
 * Writes prepared messages (a fleet scenario's history) to the queue `options` names, in order, 10 at a time;
 * resolves with how many the sink accepted.
 */
export async function sendMessages(options: Pick<SimulateOptions, 'to' | 'inboxDir' | 'queueUrl' | 'endpoint' | 'region' | 'sink'>, messages: readonly OutgoingMessage[]): Promise<number> {
  const sink = options.sink ?? await openSink(options);
  try {
    for (let at = 0; at < messages.length; at += BATCH) await sink.write(messages.slice(at, at + BATCH));
  } finally {
    if (!options.sink) await sink.close();
  }
  return messages.length;
}

async function openSink(options: Pick<SimulateOptions, 'to' | 'inboxDir' | 'queueUrl' | 'endpoint' | 'region'>): Promise<Sink> {
  if (options.to === 'spool') return spoolSink({ dir: options.inboxDir ?? DEFAULT_INBOX_DIR });
  const { queueUrl, endpoint, region } = options;
  if (!queueUrl) throw new Error('simulate --to sqs needs a queue URL (SQS_QUEUE_URL)');
  return sqsSink({ queueUrl, ...(endpoint ? { endpoint } : {}), ...(region ? { region } : {}) });
}
