// notify: fi.persisted.v1 -> the device's DNP3 topic, MultiSpeak outbox rows and alarms in Postgres.
import type pg from 'pg';
import { CHAIN_INPUT } from '../shape.js';
import type { PersistedCheckIn } from '../../schemas/avro/values.js';
import type { Stage, StageResult } from '../runtime/stage.js';
import type { Transport } from '../runtime/transport/transport.js';
import { notificationsFor, type MultiSpeakIntegration, type OutboxRow } from './handler.js';
import { readIntegrations } from '../../integrations/store.js';
import { enqueue } from '../../multispeak/delivery/outbox.js';
import { multiSpeakSettings } from '../../multispeak/integration.js';
import { recordStored } from '../../plumbing/test-fault-timeline.js';
import { checkInAlarms, type CheckInAlarms } from '../../alarms/check-in-alarms.js';
import { applyCheckInAlarms } from '../../alarms/raise.js';

const INTEGRATIONS_TTL_MS = 10_000;

async function loadIntegrations(pool: pg.Pool): Promise<MultiSpeakIntegration[]> {
  return (await readIntegrations(pool, { kind: 'multispeak' })).map(multiSpeakSettings);
}

export function notifyStage({ pool, transport }: { pool: pg.Pool; transport: Transport }): Stage<PersistedCheckIn> {
  let integrations: { at: number; list: MultiSpeakIntegration[] } | null = null;
  const knownTopics = new Set<string>();
  return {
    name: 'notify',
    input: CHAIN_INPUT.notify,
    outputs: [],
    async handle(batch): Promise<StageResult> {
      if (!integrations || Date.now() - integrations.at > INTEGRATIONS_TTL_MS) integrations = { at: Date.now(), list: await loadIntegrations(pool) };
      const result: StageResult = { produce: [], deadLetters: [] };
      const outbox: OutboxRow[] = [];
      const alarms: CheckInAlarms[] = [];
      for (const { value } of batch.messages) {
        const a = checkInAlarms(value);
        if (a) alarms.push(a);
        const n = notificationsFor(value, integrations.list);
        if (n.dnp3) result.produce.push({ topic: n.dnp3.address, key: n.dnp3.payload.IMEINumber, value: n.dnp3.payload });
        outbox.push(...n.outbox);
      }
      // DNP3 queue addresses are customer topics, created on first use.
      const fresh = [...new Set(result.produce.map((p) => p.topic))].filter((t) => !knownTopics.has(t));
      if (fresh.length) {
        await transport.ensureTopics(fresh);
        for (const t of fresh) knownTopics.add(t);
      }
      // In batch order, so the delivery worker keeps each device's order.
      await enqueue(pool, outbox);
      // A test fault's timeline: its check-in is stored (docs/decisions.md#test-faults).
      await recordStored(pool, batch.messages.flatMap(({ value: m }) => (m.ownsRecord && m.checkIn.test_fault ? [{ recordId: m.DeviceRecordID, mark: m.checkIn.test_fault }] : [])));
      // Alarms (alarms/raise.ts): idempotent like the outbox, so a re-delivered batch raises nothing twice.
      await applyCheckInAlarms(pool, alarms);
      return result;
    },
  };
}
