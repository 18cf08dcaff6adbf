// notify: the effects of each stored check-in, once (docs/decisions.md#effects-exactly-once-across-a-crash): DNP3
// JSON to the device's DNP3 topic, MultiSpeak rows into the outbox, test-fault marks and alarms in Postgres.
//
// What a stored record is owed is not read from this stage's input but from pending_effects, which persist
// wrote in the transaction that stored the record. One transaction per batch takes the pending rows of the
// batch's devices (including any a crash left behind, oldest first), produces their DNP3 records, writes their
// rows and commits, which clears them. A crash anywhere before that commit leaves them owed: the next batch of
// the device, or the next assignment of this stage (a restart), applies them; after it, nothing is owed twice.
import type pg from 'pg';
import { CHAIN_INPUT } from '../shape.js';
import type { PersistedCheckIn } from '../../schemas/avro/values.js';
import { emptyResult, type Stage, type StageResult } from '../runtime/stage.js';
import type { OutMessage, Transport } from '../runtime/transport/transport.js';
import { notificationsFor, type MultiSpeakIntegration, type OutboxRow } from './handler.js';
import { devicesOwed, newestOwed, takePending } from './pending.js';
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
/** Devices per recovery transaction at assignment. */
const RECOVERY_DEVICES = 500;

async function loadIntegrations(pool: pg.Pool): Promise<MultiSpeakIntegration[]> {
  return (await readIntegrations(pool, { kind: 'multispeak' })).map(multiSpeakSettings);
}

export function notifyStage({ pool, transport }: { pool: pg.Pool; transport: Transport }): Stage<PersistedCheckIn> {
  let integrations: { at: number; list: MultiSpeakIntegration[] } | null = null;
  const knownTopics = new Set<string>();
  const producer = transport.producer();

  const currentIntegrations = async () => {
    if (!integrations || Date.now() - integrations.at > INTEGRATIONS_TTL_MS) integrations = { at: Date.now(), list: await loadIntegrations(pool) };
    return integrations.list;
  };

  /** Applies every pending record of these devices in one transaction; how many it applied. */
  const applyOwed = async (imeis: readonly string[]): Promise<number> => {
    if (imeis.length === 0) return 0;
    const list = await currentIntegrations();
    return withTransaction(pool, async (client) => {
      const records = await takePending(client, imeis);
      if (records.length === 0) return 0;
      const feed: OutMessage[] = [];
      const outbox: OutboxRow[] = [];
      const alarms: CheckInAlarms[] = [];
      for (const m of records) {
        const a = checkInAlarms(m);
        if (a) alarms.push(a);
        const n = notificationsFor(m, list);
        if (n.dnp3) feed.push({ topic: n.dnp3.address, key: n.dnp3.payload.IMEINumber, value: n.dnp3.payload });
        outbox.push(...n.outbox);
      }
      // The DNP3 feed first, acknowledged, then the rows and the clearing commit together: a crash between the
      // two sends the feed records again (at least once; each names its IMEI and date), never loses one.
      if (feed.length) {
        // DNP3 queue addresses are customer topics, created on first use.
        const fresh = [...new Set(feed.map((p) => p.topic))].filter((t) => !knownTopics.has(t));
        if (fresh.length) {
          await transport.ensureTopics(fresh);
          for (const t of fresh) knownTopics.add(t);
        }
        await producer.send(feed);
      }
      await failpoint('notify.after-feed');
      // In record order, so the delivery worker keeps each device's order.
      await enqueue(client, outbox);
      // A test fault's timeline: its check-in is stored (docs/decisions.md#test-faults).
      await recordStored(client, records.flatMap((m) => (m.checkIn.test_fault ? [{ recordId: m.DeviceRecordID, mark: m.checkIn.test_fault }] : [])));
      // Alarms (alarms/raise.ts): idempotent like the outbox, so a repeat raises nothing twice.
      await applyCheckInAlarmsIn(client, alarms);
      return records.length;
    });
  };

  return {
    name: 'notify',
    input: CHAIN_INPUT.notify,
    outputs: [],
    /** A restart or a rebalance: whatever a crash left owed is applied before the first batch. */
    async onAssign() {
      try {
        const upTo = await newestOwed(pool);
        if (upTo === null) return;
        let applied = 0;
        // A device whose owed effects fail (its batches dead-letter them too) is left out, so it cannot hold
        // back every other device's recovery.
        const failing: string[] = [];
        for (let imeis = await devicesOwed(pool, upTo, RECOVERY_DEVICES); imeis.length; imeis = await devicesOwed(pool, upTo, RECOVERY_DEVICES, failing)) {
          applied += await applyOwed(imeis).catch(async () => {
            let one = 0;
            for (const imei of imeis) {
              one += await applyOwed([imei]).catch((err: unknown) => {
                failing.push(imei);
                log.error({ stage: 'notify', imei, err: (err as Error).message }, 'could not apply a device\'s owed effects at assignment; its next batch tries again');
                return 0;
              });
            }
            return one;
          });
        }
        if (applied) log.warn({ stage: 'notify', records: applied }, 'applied the effects a crash left owed');
      } catch (err) {
        // The batches of those devices apply them too; a failing assignment would only stop the consumer.
        log.error({ stage: 'notify', err: (err as Error).message }, 'could not apply owed effects at assignment; each device\'s next batch will');
      }
    },
    async handle(batch): Promise<StageResult> {
      await applyOwed([...new Set(batch.messages.map((m) => m.value.checkIn.device_data.IMEINumber))]);
      return emptyResult();
    },
  };
}
