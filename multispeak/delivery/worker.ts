// The MultiSpeak delivery worker: the shared outbox loop (outbox/worker.ts) over the MultiSpeak outbox, so a slow or dead OMS holds up only its own rows,
// never ingestion (the notify stage only inserts). At least once: a row is marked delivered after the OMS
// answered; a crash between the two re-sends it with the same MessageID.
import type pg from 'pg';
import { log } from '../../config/log.js';
import { OUTBOX_DEFAULTS, startOutboxWorker } from '../../outbox/worker.js';
import type { Keyring } from '../../secrets/keyring.js';
import { deliverRow } from './deliver.js';
import { DeliveryError, type DeliveryErrorCode } from './errors.js';
import { deliveryMetrics as m } from './metrics.js';
import { multiSpeakOutbox, type ClaimedRow } from './outbox.js';
import { DEFAULTS } from '../integration.js';
import { resyncIntegration } from './resync.js';
import { OutageTracker } from './outage.js';
import { targetCache, type Target } from './target.js';
import { noteTestFaultAnswer } from '../../plumbing/test-fault-timeline.js';

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
  /** Back-off between attempts of one row: exponential with full jitter (plumbing/retry.ts). */
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

/**
 * @example
 *   const worker = startDeliveryWorker({ pool, keyring });
 *   runtime.onClose(() => worker.stop());
 */
export function startDeliveryWorker(options: DeliveryWorkerOptions, { loop = true } = {}): DeliveryWorker {
  const o: WorkerOptions = { ...OUTBOX_DEFAULTS, integrationsTtlMs: 10_000, ...options };
  const getTarget = targetCache(o.pool, o.integrationsTtlMs);
  const outages = new OutageTracker();
  // The target of each row in flight, for the metrics and the maximum age after its attempt.
  const targets = new Map<number, { target: Target | null; started: bigint; status?: number }>();
  return startOutboxWorker<ClaimedRow>({
    name: 'delivery', label: 'MultiSpeak', pool: o.pool, table: multiSpeakOutbox,
    pollMs: o.pollMs, batchSize: o.batchSize, concurrency: o.concurrency, leaseMs: o.leaseMs, backoff: o.backoff,
    async send(row) {
      const slot: { target: Target | null; started: bigint; status?: number } = { target: null, started: process.hrtime.bigint() };
      targets.set(row.id, slot);
      slot.target = await getTarget(row.integration_id);
      slot.status = (await deliverRow(row, slot.target, o.keyring, new Date())).status;
    },
    failure(err) {
      const e = err instanceof DeliveryError ? err : new DeliveryError('CONNECT_FAILED', (err as Error).message);
      return { code: e.code, message: e.message, retriable: e.retriable };
    },
    maxAgeMs: (row) => targets.get(row.id)?.target?.maxAgeMs ?? DEFAULTS.maxAgeHours * 3_600_000,
    async onDelivered(row) {
      const slot = done(row);
      m.sent.inc({ integration: row.integration_id, operation: slot?.target?.operation ?? '' });
      const sinceStored = Math.max(0, (Date.now() - row.created_at.getTime()) / 1000);
      m.latencySeconds.observe({ integration: row.integration_id }, sinceStored);
      if (slot?.target) m.acknowledgedSeconds.observe({ organization: slot.target.organizationId }, sinceStored);
      await noteTestFaultAnswer(o.pool, row, { ok: true, status: slot?.status ?? null, operation: slot?.target?.operation ?? null });
      if (outages.delivered(row.integration_id) && slot?.target) await resyncAfterOutage(slot.target, o);
    },
    onFailed(row, f, dead) {
      done(row);
      outages.failed(row.integration_id, f.code as DeliveryErrorCode);
      m.failed.inc({ integration: row.integration_id, code: f.code });
      if (dead) m.dead.inc({ integration: row.integration_id });
      void noteTestFaultAnswer(o.pool, row, { ok: false, code: f.code, error: f.message, dead });
    },
    onPending: (n) => m.pending.set(n),
    describe: (row) => ({ integration: row.integration_id, imei: row.IMEINumber }),
  }, { loop });

  function done(row: ClaimedRow) {
    const slot = targets.get(row.id);
    targets.delete(row.id);
    if (slot?.target) m.requestSeconds.observe({ integration: row.integration_id }, Number(process.hrtime.bigint() - slot.started) / 1e9);
    return slot;
  }
}
