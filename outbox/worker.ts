// The delivery loop every durable outbox shares (MultiSpeak notifications, alarm messages): claim the due
// heads of the lanes, send them on `concurrency` lanes at once, mark each delivered or failed with
// exponential back-off (plumbing/retry.ts), dead past the maximum age or when the failure is not worth
// retrying. At least once: a row is marked delivered after the peer answered; a crash between the two
// re-sends it, with the same idempotency key (each sender derives it from the row).
// Rounds run on db/wakeups.ts, as the alarm router's do: a NOTIFY on the table's channel (OutboxTableSpec.channel, migration 0046) when
// rows arrive from any process, wake() from this one, and every `pollMs` as the fallback for a lost
// notification and for rows that only time makes due (a back-off, an expired lease, an operator's retry).
import type pg from 'pg';
import { log } from '../config/log.js';
import { startWakeups } from '../db/wakeups.js';
import { backoffDelay } from '../plumbing/retry.js';
import type { ClaimedBase, OutboxTable } from './table.js';

/** How a sender reports a failure: a code, and whether another try can help. */
export interface SendFailure { code: string; message: string; retriable: boolean }

export interface OutboxWorkerOptions<Row extends ClaimedBase> {
  /** Log component name. */
  name: string;
  /** What the log lines call a delivery ("MultiSpeak", "alarm"). */
  label: string;
  pool: pg.Pool;
  table: OutboxTable<Row>;
  /** One attempt; throws on failure. */
  send(row: Row): Promise<void>;
  /** Any thrown value as a failure (code, message without secrets, retriable). */
  failure(err: unknown): SendFailure;
  /** Age after which a failing row is dead. */
  maxAgeMs(row: Row): number;
  /** Called after a delivery and after a failed attempt (metrics, outage tracking). */
  onDelivered?(row: Row): Promise<void> | void;
  onFailed?(row: Row, f: SendFailure, dead: boolean): void;
  onPending?(n: number): void;
  /** Log fields naming a row (ids only, never a payload). */
  describe(row: Row): Record<string, unknown>;
  pollMs?: number;
  batchSize?: number;
  concurrency?: number;
  leaseMs?: number;
  backoff?: { initialMs?: number; maxMs?: number };
  /** Clock for the maximum age (tests move it). */
  now?: () => number;
}

export interface OutboxWorker {
  /** One claim-and-send round; resolves with the number of rows attempted. */
  runOnce(): Promise<number>;
  /** A round now: the same process has just written rows (the NOTIFY and the tick stay the fallback). */
  wake(): void;
  stop(): Promise<void>;
}

/** The loop's settings when a caller gives none (docs/integration.md#success-and-retries); written here only. */
export const OUTBOX_DEFAULTS = { pollMs: 500, batchSize: 100, concurrency: 16, leaseMs: 5 * 60_000, backoff: { initialMs: 1_000, maxMs: 10 * 60_000 } } as const;

export function startOutboxWorker<Row extends ClaimedBase>(options: OutboxWorkerOptions<Row>, { loop = true } = {}): OutboxWorker {
  // An option passed as undefined (a caller forwarding its own optional setting) keeps the default.
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as OutboxWorkerOptions<Row>;
  const o = { ...OUTBOX_DEFAULTS, now: Date.now, ...given };
  let lastCount = 0;

  async function attempt(row: Row): Promise<void> {
    try {
      await o.send(row);
      await o.table.markDelivered(o.pool, row.id);
      await o.onDelivered?.(row);
    } catch (err) {
      const f = o.failure(err);
      const dead = !f.retriable || o.now() - row.created_at.getTime() >= o.maxAgeMs(row);
      await o.table.markFailed(o.pool, row.id, `${f.code}: ${f.message}`, backoffDelay(row.attempts, o.backoff), dead);
      o.onFailed?.(row, f, dead);
      // Names ids and the reason only: no payload, no header, no secret.
      log[dead ? 'error' : 'warn']({ component: o.name, outboxId: row.id, attempt: row.attempts, code: f.code, dead, ...o.describe(row) }, `${o.label} delivery failed: ${f.message}`);
    }
  }

  async function runOnce(): Promise<number> {
    if (o.onPending && Date.now() - lastCount > 5_000) {
      lastCount = Date.now();
      o.onPending(await o.table.pendingCount(o.pool));
    }
    const rows = await o.table.claimDue(o.pool, o.batchSize, o.leaseMs);
    // Claimed rows are one per lane, so any order between them is fine; a pool of `concurrency` lanes.
    let next = 0;
    const lanes = Array.from({ length: Math.min(o.concurrency, rows.length) }, async () => {
      while (next < rows.length) await attempt(rows[next++]!);
    });
    await Promise.all(lanes);
    return rows.length;
  }

  // The database away: rounds wait out a growing back-off (the NOTIFY and the tick come sooner); rows stay
  // claimed only for the lease.
  let failures = 0;
  let retryAt = 0;
  const step = async (): Promise<boolean> => {
    if (Date.now() < retryAt) return false;
    try {
      const n = await runOnce();
      failures = 0;
      return n > 0;
    } catch (err) {
      failures++;
      retryAt = Date.now() + backoffDelay(failures);
      log.warn({ component: o.name, err: (err as Error).message }, 'outbox poll failed');
      return false;
    }
  };
  const wakeups = loop ? startWakeups({ pool: o.pool, channel: o.table.spec.channel, tickMs: o.pollMs, component: o.name, step }) : null;

  return {
    runOnce,
    wake() {
      wakeups?.kick();
    },
    async stop() {
      await wakeups?.stop();
    },
  };
}
