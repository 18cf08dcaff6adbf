// The fleet worker (the `fleet` component of `faultline start`; docs/decisions.md#fleet-worker): every `tickMs`
// (FLEET_ASSESS_MINUTES) it runs its steps in order, each in a transaction of its own, and the fleet view reads
// what they last committed. Any number of processes may run it: a session advisory lock held for the whole round
// lets one work at a time, so the steps never overlap and each reads what the step before committed. A step
// that throws is rolled back, logged and counted; the round goes on to the next step, and the failed one is run
// again on the next tick.
import type pg from 'pg';
import { failpoint } from '../config/failpoints.js';
import { log } from '../config/log.js';
import { startWakeups } from '../db/wakeups.js';
import { fleetMetrics } from './metrics.js';

/** pg_try_advisory_lock key of the fleet worker's round ("flet"). */
export const FLEET_LOCK = 0x666c6574;

/** One step: its work at `now` in the transaction open on `client` (commit and rollback are the worker's). */
export interface FleetStep {
  name: string;
  run: (client: pg.PoolClient, now: Date) => Promise<unknown>;
}

export interface FleetWorkerOptions {
  pool: pg.Pool;
  tickMs: number;
  clock?: () => Date;
  /** In the order they run (fleet-health/steps.ts). */
  steps: readonly FleetStep[];
}

/** What a round did: false `locked` when another process held the round. */
export interface FleetRound { locked: boolean; ran: string[]; failed: string[] }

export interface FleetWorker {
  /** One round now (tests); resolves with what it did. */
  runOnce(): Promise<FleetRound>;
  /** The running round finished; no round after. */
  stop(): Promise<void>;
}

export function startFleetWorker(o: FleetWorkerOptions, { loop = true } = {}): FleetWorker {
  const { pool, steps, clock = () => new Date() } = o;

  const runOnce = async (): Promise<FleetRound> => {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      const { rows: [lock] } = await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1) as ok', [FLEET_LOCK]);
      if (!lock?.ok) return { locked: false, ran: [], failed: [] };
      const round: FleetRound = { locked: true, ran: [], failed: [] };
      try {
        for (const step of steps) {
          try {
            await client.query('begin');
            await step.run(client, clock());
            await client.query('commit');
            fleetMetrics.stepRuns.inc({ step: step.name });
            round.ran.push(step.name);
            await failpoint('fleet.between-steps');
          } catch (err) {
            await client.query('rollback').catch((e: Error) => { broken = e; });
            fleetMetrics.stepFailures.inc({ step: step.name });
            round.failed.push(step.name);
            log.error({ component: 'fleet', step: step.name, err: (err as Error).message }, 'fleet step failed; rolled back and run again on the next tick');
            if (broken) break;
          }
        }
      } finally {
        // A broken connection took its session lock with it.
        if (!broken) await client.query('select pg_advisory_unlock($1)', [FLEET_LOCK]).catch((e: Error) => { broken = e; });
      }
      return round;
    } catch (err) {
      broken = err as Error;
      throw err;
    } finally {
      // A connection that failed is not given back to the pool (its session state is unknown).
      client.release(broken);
    }
  };

  const wakeups = loop ? startWakeups({
    pool, tickMs: o.tickMs, component: 'fleet',
    step: async () => {
      await runOnce();
      return false;
    },
  }) : null;

  return {
    runOnce,
    async stop() {
      await wakeups?.stop();
    },
  };
}
