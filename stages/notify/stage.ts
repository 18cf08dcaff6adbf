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
import type { OutMessage, Transport } from '../runtime/transport/transport.js';
import { notificationsFor, type MultiSpeakIntegration, type OutboxRow } from './handler.js';
import { clearFeed, devicesOwed, newestOwed, takeApplied, takeUnapplied } from './pending.js';
import { readIntegrations } from '../../integrations/store.js';
import { enqueue } from '../../multispeak/delivery/outbox.js';
import { multiSpeakSettings } from '../../multispeak/integration.js';
import { recordStored } from '../../plumbing/test-fault-timeline.js';
import { checkInAlarms, type CheckInAlarms } from '../../alarms/check-in-alarms.js';
import { applyCheckInAlarmsIn } from '../../alarms/raise.js';
import { withTransaction } from '../../db/transaction.js';
import { failpoint } from '../../config/failpoints.js';
import type { NotifySettings } from '../../config/settings.js';
import { log } from '../../config/log.js';

const INTEGRATIONS_TTL_MS = 10_000;
/** Devices per recovery (or sweep) call of applyOwed. */
const RECOVERY_DEVICES = 500;

async function loadIntegrations(pool: pg.Pool): Promise<MultiSpeakIntegration[]> {
  return (await readIntegrations(pool, { kind: 'multispeak' })).map(multiSpeakSettings);
}

export interface NotifyOptions extends NotifySettings { pool: pg.Pool; transport: Transport }

export function notifyStage({ pool, transport, sweepAfterMs, chunkRecords }: NotifyOptions): Stage<PersistedCheckIn> {
  let integrations: { at: number; list: MultiSpeakIntegration[] } | null = null;
  const knownTopics = new Set<string>();
  const producer = transport.producer();

  const currentIntegrations = async () => {
    if (!integrations || Date.now() - integrations.at > INTEGRATIONS_TTL_MS) integrations = { at: Date.now(), list: await loadIntegrations(pool) };
    return integrations.list;
  };

  /** The Postgres effects of the oldest records these devices owe (at most a chunk), committed; how many. */
  const applyRows = async (imeis: readonly string[], list: readonly MultiSpeakIntegration[]): Promise<number> => withTransaction(pool, async (client) => {
    const records = await takeUnapplied(client, imeis, chunkRecords);
    const outbox: OutboxRow[] = [];
    const alarms: CheckInAlarms[] = [];
    for (const m of records) {
      const a = checkInAlarms(m);
      if (a) alarms.push(a);
      outbox.push(...notificationsFor(m, list).outbox);
    }
    // In record order, so the delivery worker keeps each device's order.
    await enqueue(client, outbox);
    // A test fault's timeline: its check-in is stored (docs/decisions.md#test-faults).
    await recordStored(client, records.flatMap((m) => (m.checkIn.test_fault ? [{ recordId: m.DeviceRecordID, mark: m.checkIn.test_fault }] : [])));
    // Alarms (alarms/raise.ts): idempotent like the outbox, so a repeat raises nothing twice.
    await applyCheckInAlarmsIn(client, alarms);
    return records.length;
  });

  /**
   * The DNP3 feed of the oldest applied records of these devices (at most a chunk, so one produce stays far
   * below a topic's max.message.bytes), produced and acknowledged, then cleared; how many records.
   */
  const produceFeed = async (imeis: readonly string[]): Promise<number> => withTransaction(pool, async (client) => {
    const records = await takeApplied(client, imeis, chunkRecords);
    const feed: OutMessage[] = records.flatMap((m) => {
      const { dnp3 } = notificationsFor(m, []);
      return dnp3 ? [{ topic: dnp3.address, key: dnp3.payload.IMEINumber, value: dnp3.payload }] : [];
    });
    if (feed.length) {
      // DNP3 queue addresses are customer topics, created on first use.
      const fresh = [...new Set(feed.map((p) => p.topic))].filter((t) => !knownTopics.has(t));
      if (fresh.length) {
        await transport.ensureTopics(fresh);
        for (const t of fresh) knownTopics.add(t);
      }
      await producer.send(feed);
    }
    // Produced, not cleared: a crash here (or a failed clearing) sends these records again (at least once; each
    // names its IMEI and date, the reader's key).
    await failpoint('notify.after-feed');
    await clearFeed(client, records.map((m) => m.DeviceRecordID));
    return records.length;
  });

  /** Applies everything these devices owe, chunk by chunk; how many records. */
  const applyOwed = async (imeis: readonly string[]): Promise<number> => {
    if (imeis.length === 0) return 0;
    const list = await currentIntegrations();
    let applied = 0;
    for (;;) {
      const rows = await applyRows(imeis, list);
      // The rows are committed, the feed not produced: a crash here leaves it owed (applied_at set).
      if (rows) await failpoint('notify.after-effects');
      const fed = await produceFeed(imeis);
      applied += rows;
      if (rows < chunkRecords && fed < chunkRecords) return applied;
    }
  };

  /**
   * Applies what the devices `find` names, pass after pass until none is left; a device whose owed effects fail
   * (its batches dead-letter them too) is left out, so it cannot hold back every other device's.
   */
  const applyDevices = async (why: string, find: (skip: readonly string[]) => Promise<string[]>): Promise<void> => {
    let applied = 0;
    const failing: string[] = [];
    for (let imeis = await find(failing); imeis.length; imeis = await find(failing)) {
      applied += await applyOwed(imeis).catch(async () => {
        let one = 0;
        for (const imei of imeis) {
          one += await applyOwed([imei]).catch((err: unknown) => {
            failing.push(imei);
            log.error({ stage: 'notify', imei, err: (err as Error).message }, `could not apply a device's owed effects (${why}); its next batch and the next sweep try again`);
            return 0;
          });
        }
        return one;
      });
    }
    if (applied) log.warn({ stage: 'notify', records: applied }, `applied effects left owed (${why})`);
  };

  // The sweep: rows owed longer than sweepAfterMs, which no batch and no assignment may come to (split shape:
  // the upstream process died between persist's commit and its produce to fi.persisted.v1, and notify's group
  // did not move). Runs while this member owns partitions; the device locks make it take turns with batches.
  const owned = new Set<number>();
  let sweeper: NodeJS.Timeout | null = null;
  let sweeping: Promise<void> | null = null;
  const sweep = () => {
    sweeping ??= applyDevices('owed too long', (skip) => devicesOwed(pool, { olderThanMs: sweepAfterMs }, RECOVERY_DEVICES, skip))
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
      if (!sweeper && owned.size) sweeper = setInterval(sweep, sweepEveryMs(sweepAfterMs)).unref();
      try {
        const upTo = await newestOwed(pool);
        if (upTo === null) return;
        await applyDevices('at assignment', (skip) => devicesOwed(pool, { upTo }, RECOVERY_DEVICES, skip));
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
        // A drain waits for the sweep in flight, as for a batch: nothing of it is cut off half way.
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
