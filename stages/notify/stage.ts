// notify: the effects of each stored check-in, once (docs/decisions.md#effects-exactly-once-across-a-crash): DNP3
// JSON to the device's DNP3 topic, MultiSpeak rows into the outbox, test-fault marks and alarms in Postgres.
//
// What a stored record is owed is not read from this stage's input but from pending_effects, which persist
// wrote in the transaction that stored the record. A batch applies what its devices owe (including any a crash
// left behind, oldest first) in bounded chunks, each in two transactions: the first writes the rows and marks
// them applied; the second produces their DNP3 records and then clears them. A transaction that fails
// has produced nothing, so a retry produces nothing twice; a crash leaves them owed. What is owed is applied by
// the device's next batch, the next assignment of this stage (a restart), or the sweep of rows owed longer than
// NOTIFY_SWEEP_AFTER_SECONDS (docs/decisions.md#effects-exactly-once-sweep-feed-chunks).
import type pg from 'pg';
import { CHAIN_INPUT } from '../shape.js';
import type { PersistedCheckIn } from '../../schemas/avro/values.js';
import { emptyResult, type Stage, type StageResult } from '../runtime/stage.js';
import type { Transport } from '../runtime/transport/transport.js';
import { owedEffects } from './owed.js';
import { devicesOwed, newestOwed } from './pending.js';
import type { NotifySettings } from '../../config/settings.js';
import { log } from '../../config/log.js';

/** Devices per recovery (or sweep) call of applyOwed. */
const RECOVERY_DEVICES = 500;

export interface NotifyOptions extends NotifySettings { pool: pg.Pool; transport: Transport }

export function notifyStage({ pool, transport, sweepAfterMs, chunkRecords }: NotifyOptions): Stage<PersistedCheckIn> {
  const { applyOwed, applyDevices } = owedEffects({ pool, transport, chunkRecords });

  // The sweep: rows owed longer than sweepAfterMs, which no batch and no assignment may come to (split shape:
  // the upstream process died between persist's commit and its produce to fi.persisted.v1, and notify's group
  // did not move). Runs while this member owns partitions; the device locks make it take turns with batches.
  const owned = new Set<number>();
  let sweeper: NodeJS.Timeout | null = null;
  let sweeping: Promise<void> | null = null;
  /** Set when the last partition goes (a rebalance or the drain): the sweep and the recovery stop between chunks. */
  let stopping = false;
  const stopped = () => stopping;
  const sweep = () => {
    sweeping ??= applyDevices('owed too long', (skip) => devicesOwed(pool, { olderThanMs: sweepAfterMs }, RECOVERY_DEVICES, skip), stopped)
      .catch((err: unknown) => log.error({ stage: 'notify', err: (err as Error).message }, 'could not sweep owed effects; the next sweep tries again'))
      .finally(() => { sweeping = null; });
  };

  return {
    name: 'notify',
    input: CHAIN_INPUT.notify,
    outputs: [],
    /** A restart or a rebalance: whatever a crash left owed is applied before the first batch. */
    async onAssign(partitions) {
      for (const p of partitions) owned.add(p);
      if (owned.size) stopping = false;
      if (!sweeper && owned.size) sweeper = setInterval(sweep, sweepEveryMs(sweepAfterMs)).unref();
      try {
        const upTo = await newestOwed(pool);
        if (upTo === null) return;
        await applyDevices('at assignment', (skip) => devicesOwed(pool, { upTo }, RECOVERY_DEVICES, skip), stopped);
      } catch (err) {
        // The batches of those devices apply them too; a failing assignment would only stop the consumer.
        log.error({ stage: 'notify', err: (err as Error).message }, 'could not apply owed effects at assignment; each device\'s next batch will');
      }
    },
    async onRevoke(partitions) {
      for (const p of partitions) owned.delete(p);
      if (owned.size === 0 && sweeper) {
        clearInterval(sweeper);
        sweeper = null;
        // A drain waits for the sweep in flight to finish its chunk, as for a batch: nothing is cut off half way,
        // and the rest stays owed for the next owner (a sweep of a far-behind notify would never end).
        stopping = true;
        await sweeping;
      }
    },
    async handle(batch): Promise<StageResult> {
      await applyOwed([...new Set(batch.messages.map((m) => m.value.checkIn.device_data.IMEINumber))]);
      return emptyResult();
    },
  };
}

/** How often the sweep looks: often enough that a row waits at most about 1.5 times the bound. */
const sweepEveryMs = (sweepAfterMs: number) => Math.max(1_000, Math.round(sweepAfterMs / 2));
