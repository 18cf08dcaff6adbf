// The incident worker (the `incidents` component of `faultline start`): runs incident steps (step.ts) when
// persist stores a fault event (LISTEN incident_inbox, from the trigger of migration 0011) and at least every
// `tickMs` (restoration and closing depend on later check-ins and on time). Any number of processes may run
// it: the step's advisory lock lets one work at a time.
import type pg from 'pg';
import { log } from '../config/log.js';
import { withTransaction } from '../db/transaction.js';
import { startWakeups } from '../db/wakeups.js';
import { DEFAULT_INCIDENT_WINDOW_MS } from '../domain/incident-rules.js';
import { readIntegrations } from '../integrations/store.js';
import { multiSpeakSettings } from '../multispeak/integration.js';
import type { IncidentIntegration } from './notifications.js';
import { incidentStep, type IncidentChange, type StepResult } from './step.js';
import { DEFAULT_FLOOR_S } from '../domain/checkin-clock.js';
import { incidentMetrics } from './metrics.js';

export interface IncidentWorkerOptions {
  pool: pg.Pool;
  windowMs?: number;
  /** OFFLINE_AFTER_HOURS and CHECKIN_INTERVAL_FLOOR_MINUTES (in seconds): when a silent indicator counts as offline. */
  offlineAfterHours?: number;
  checkinFloorS?: number;
  tickMs?: number;
  batch?: number;
  clock?: () => Date;
  /** Called after each committed step with what changed (alarm rules, metrics). */
  onChanges?: (changes: IncidentChange[]) => void | Promise<void>;
}

export interface IncidentWorker {
  /** One step now (tests); resolves with what it did. */
  runOnce(): Promise<StepResult>;
  stop(): Promise<void>;
}

async function incidentIntegrations(pool: pg.Pool): Promise<IncidentIntegration[]> {
  return (await readIntegrations(pool, { kind: 'multispeak' })).map(multiSpeakSettings)
    .map((s) => ({ id: s.id, OrganizationID: s.OrganizationID, notifyPer: s.notifyPer }));
}

export function startIncidentWorker(o: IncidentWorkerOptions, { loop = true } = {}): IncidentWorker {
  const { pool, windowMs = DEFAULT_INCIDENT_WINDOW_MS, offlineAfterHours = 26, checkinFloorS = DEFAULT_FLOOR_S, tickMs = 1000, batch = 2000, clock = () => new Date() } = o;

  const runOnce = async (): Promise<StepResult> => {
    const integrations = await incidentIntegrations(pool);
    const result = await withTransaction(pool, (client) => incidentStep(client, { windowMs, clockLimits: { floorS: checkinFloorS, ceilingS: offlineAfterHours * 3600 }, batch, now: clock(), integrations }));
    if (result.changes.length > 0) await o.onChanges?.(result.changes);
    return result;
  };

  // Woken by the trigger of migration 0011 (NOTIFY incident_inbox) and every tick; a full batch asks for another.
  const wakeups = loop ? startWakeups({
    pool, channel: 'incident_inbox', tickMs, component: 'incidents',
    step: async () => {
      try {
        return (await runOnce()).taken >= batch;
      } catch (err) {
        incidentMetrics.stepFailures.inc();
        log.error({ component: 'incidents', err: (err as Error).message }, 'incident step failed; retried on the next tick');
        return false;
      }
    },
  }) : null;
  if (loop) incidentMetrics.watch(pool);

  return {
    runOnce,
    async stop() {
      await wakeups?.stop();
    },
  };
}
