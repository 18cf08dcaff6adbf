// The delivery worker: its own loop over the outbox, so a slow or dead OMS holds up only its own rows,
// never ingestion (the notify stage only inserts). At least once: a row is marked delivered after the OMS
// answered; a crash between the two re-sends it with the same MessageID.
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { log } from '../../config/log.js';
import type { Keyring } from '../../secrets/keyring.js';
import { backoffDelay } from '../../stages/runtime/retry.js';
import { deliverRow } from './deliver.js';
import { DeliveryError } from './errors.js';
import { deliveryMetrics as m } from './metrics.js';
import { claimDue, markDelivered, markFailed, pendingCount, type ClaimedRow } from './outbox.js';
import { DEFAULTS } from '../integration.js';
import { resyncIntegration } from '../resync.js';
import { OutageTracker } from './outage.js';
import { targetCache, type Target } from './target.js';

export interface DeliveryWorkerOptions {
  pool: pg.Pool;
  /** null: no key configured; integrations with credentials then fail (retried, visible in `outbox list`). */
  keyring: Keyring | null;
  /** Pause when nothing is due. */
  pollMs?: number;
  batchSize?: number;
  /** Rows sent at once (each a different device). */
  concurrency?: number;
  /** How long a claimed row is hidden from other workers; longer than any send. */
  leaseMs?: number;
  /** Back-off between attempts of one row: exponential with full jitter (stages/runtime/retry.ts). */
  backoff?: { initialMs?: number; maxMs?: number };
  /** How long integration settings are cached; a re-import is seen after at most this. */
  integrationsTtlMs?: number;
}

export interface DeliveryWorker {
  /** One claim-and-send round; resolves with the number of rows attempted. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

type WorkerOptions = Required<Omit<DeliveryWorkerOptions, 'pool' | 'keyring'>> & DeliveryWorkerOptions;

/** An outage of this integration's OMS just ended: queue every device's current state if it asked for that. */
async function resyncAfterOutage(target: Target, o: WorkerOptions): Promise<void> {
  if (!target.resyncAfterOutage) return;
  try {
    const r = await resyncIntegration(o.pool, target.id);
    m.resyncs.inc({ integration: target.id });
    log.info({ component: 'delivery', integration: target.id, devices: r.devices, queued: r.queued }, 'OMS reachable again after failed deliveries: resync queued the devices whose current state it lacks');
  } catch (err) {
    log.error({ component: 'delivery', integration: target.id, err: (err as Error).message }, 'resync after an OMS outage failed');
  }
}

async function attempt(row: ClaimedRow, getTarget: (id: string) => Promise<Target>, o: WorkerOptions, outages: OutageTracker): Promise<void> {
  let target: Target | null = null;
  const started = process.hrtime.bigint();
  try {
    target = await getTarget(row.integration_id);
    await deliverRow(row, target, o.keyring, new Date());
    await markDelivered(o.pool, row.id);
    m.sent.inc({ integration: row.integration_id, operation: target.operation });
    m.latencySeconds.observe({ integration: row.integration_id }, Math.max(0, (Date.now() - row.created_at.getTime()) / 1000));
    if (outages.delivered(row.integration_id)) await resyncAfterOutage(target, o);
  } catch (err) {
    const e = err instanceof DeliveryError ? err : new DeliveryError('CONNECT_FAILED', (err as Error).message);
    const maxAgeMs = target?.maxAgeMs ?? DEFAULTS.maxAgeHours * 3_600_000;
    const dead = !e.retriable || Date.now() - row.created_at.getTime() >= maxAgeMs;
    await markFailed(o.pool, row.id, `${e.code}: ${e.message}`, backoffDelay(row.attempts, o.backoff), dead);
    outages.failed(row.integration_id, e.code);
    m.failed.inc({ integration: row.integration_id, code: e.code });
    if (dead) m.dead.inc({ integration: row.integration_id });
    // Names ids and the reason only: no envelope, no header, no credentials.
    log[dead ? 'error' : 'warn']({ component: 'delivery', integration: row.integration_id, outboxId: row.id, imei: row.IMEINumber, attempt: row.attempts, code: e.code, dead }, `MultiSpeak delivery failed: ${e.message}`);
  } finally {
    if (target) m.requestSeconds.observe({ integration: row.integration_id }, Number(process.hrtime.bigint() - started) / 1e9);
  }
}

/**
 * @example
 *   const worker = startDeliveryWorker({ pool, keyring });
 *   runtime.onClose(() => worker.stop());
 */
export function startDeliveryWorker(options: DeliveryWorkerOptions, { loop = true } = {}): DeliveryWorker {
  const o = { pollMs: 500, batchSize: 100, concurrency: 16, leaseMs: 5 * 60_000, backoff: { initialMs: 1_000, maxMs: 10 * 60_000 }, integrationsTtlMs: 10_000, ...options };
  const getTarget = targetCache(o.pool, o.integrationsTtlMs);
  const outages = new OutageTracker();
  let running = true;
  let lastCount = 0;
  const stopped = new AbortController();

  async function runOnce(): Promise<number> {
    if (Date.now() - lastCount > 5_000) {
      lastCount = Date.now();
      m.pending.set(await pendingCount(o.pool));
    }
    const rows = await claimDue(o.pool, o.batchSize, o.leaseMs);
    // Claimed rows are one per device, so any order between them is fine; a pool of `concurrency` lanes.
    let next = 0;
    const lanes = Array.from({ length: Math.min(o.concurrency, rows.length) }, async () => {
      while (next < rows.length) await attempt(rows[next++]!, getTarget, o, outages);
    });
    await Promise.all(lanes);
    return rows.length;
  }

  const done = loop ? (async () => {
    let failures = 0;
    while (running) {
      try {
        const n = await runOnce();
        failures = 0;
        if (n === 0) await sleep(o.pollMs, undefined, { signal: stopped.signal }).catch(() => {});
      } catch (err) {
        // The database is away: wait, and try again; rows stay claimed only for the lease.
        failures++;
        log.warn({ component: 'delivery', err: (err as Error).message }, 'outbox poll failed');
        await sleep(backoffDelay(failures), undefined, { signal: stopped.signal }).catch(() => {});
      }
    }
  })() : Promise.resolve();

  return {
    runOnce,
    async stop() {
      running = false;
      stopped.abort();
      await done;
    },
  };
}
