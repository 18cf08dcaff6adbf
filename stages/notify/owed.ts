// What notify owes, applied: the Postgres effects of owed records in bounded chunks, then their DNP3 feed, each
// chunk in two transactions (docs/decisions.md#effects-exactly-once-sweep-feed-chunks). stage.ts decides when
// (a batch, an assignment, the sweep); this file decides how.
import type pg from 'pg';
import type { OutMessage, Transport } from '../runtime/transport/transport.js';
import { notificationsFor, type MultiSpeakIntegration, type OutboxRow } from './handler.js';
import { clearFeed, takeApplied, takeUnapplied } from './pending.js';
import { readIntegrations } from '../../integrations/store.js';
import { enqueue } from '../../multispeak/delivery/outbox.js';
import { multiSpeakSettings } from '../../multispeak/integration.js';
import { recordStored } from '../../plumbing/test-fault-timeline.js';
import { checkInAlarms, type CheckInAlarms } from '../../alarms/check-in-alarms.js';
import { applyCheckInAlarmsIn } from '../../alarms/raise.js';
import { withTransaction } from '../../db/transaction.js';
import { failpoint } from '../../config/failpoints.js';
import { log } from '../../config/log.js';

const INTEGRATIONS_TTL_MS = 10_000;
async function loadIntegrations(pool: pg.Pool): Promise<MultiSpeakIntegration[]> {
  return (await readIntegrations(pool, { kind: 'multispeak' })).map(multiSpeakSettings);
}

export interface OwedEffects {
  /** Applies everything these devices owe, chunk by chunk, until done or `stopped()`; how many records. */
  applyOwed(imeis: readonly string[], stopped?: () => boolean): Promise<number>;
  /** applyInPasses with this stage's applier. */
  applyDevices(why: string, find: (skip: readonly string[]) => Promise<string[]>, stopped: () => boolean): Promise<void>;
}

/**
 * Applies what the devices `find` names, pass after pass until none is left or `stopped()` (checked between
 * passes; `apply` checks it between chunks): while notify is more than NOTIFY_SWEEP_AFTER_SECONDS behind, `find`
 * never runs dry, and a drain must not wait for it past SHUTDOWN_TIMEOUT_MS. What is left stays owed: each chunk is
 * committed whole. A device whose owed effects fail (its batches dead-letter them too) is left out, so it cannot
 * hold back every other device's. How many records were applied.
 */
export async function applyInPasses(
  why: string,
  find: (skip: readonly string[]) => Promise<string[]>,
  apply: (imeis: readonly string[], stopped: () => boolean) => Promise<number>,
  stopped: () => boolean,
): Promise<number> {
  let applied = 0;
  const failing: string[] = [];
  while (!stopped()) {
    const imeis = await find(failing);
    if (imeis.length === 0) break;
    applied += await apply(imeis, stopped).catch(async () => {
      let one = 0;
      for (const imei of imeis) {
        if (stopped()) break;
        one += await apply([imei], stopped).catch((err: unknown) => {
          failing.push(imei);
          log.error({ stage: 'notify', imei, err: (err as Error).message }, `could not apply a device's owed effects (${why}); its next batch and the next sweep try again`);
          return 0;
        });
      }
      return one;
    });
  }
  return applied;
}

export function owedEffects({ pool, transport, chunkRecords }: { pool: pg.Pool; transport: Transport; chunkRecords: number }): OwedEffects {
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

  const applyOwed = async (imeis: readonly string[], stopped = () => false): Promise<number> => {
    if (imeis.length === 0) return 0;
    const list = await currentIntegrations();
    let applied = 0;
    for (;;) {
      const rows = await applyRows(imeis, list);
      // The rows are committed, the feed not produced: a crash here leaves it owed (applied_at set).
      if (rows) await failpoint('notify.after-effects');
      const fed = await produceFeed(imeis);
      applied += rows;
      if ((rows < chunkRecords && fed < chunkRecords) || stopped()) return applied;
    }
  };

  const applyDevices = async (why: string, find: (skip: readonly string[]) => Promise<string[]>, stopped: () => boolean): Promise<void> => {
    const applied = await applyInPasses(why, find, applyOwed, stopped);
    if (applied) log.warn({ stage: 'notify', records: applied }, `applied effects left owed (${why})`);
  };

  return { applyOwed, applyDevices };
}
