// Property: whatever the delivery does (devices interleaved at random, messages resent by devices, batches
// delivered again after a stage "crashed" between its work and its commit), the stored result equals the
// result of processing each distinct message once, in order, per device. 50 devices, several seeds, the
// in-process transport (same contract as Kafka) and real Postgres; on the chained default, cut at persist,
// and fully split (a failure then hits one segment while the others go on).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type pg from 'pg';
import { localAvroCodec } from '../../../stages/runtime/codec.js';
import { memoryTransport } from '../../../stages/runtime/transport/memory.js';
import type { SubscribeOptions, Transport } from '../../../stages/runtime/transport/transport.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { seededRandom, createFleet, type FleetMessage } from '../../../simulator/index.js';
import { createTestDatabase } from '../../../support/database.js';
import { startTestPipeline } from '../../../support/pipeline.js';
import { CHAIN, type ChainStage } from '../../../config/pipeline-split.js';
import { testKeyring } from '../../../support/reference-data.js';

const DEVICES = 50;
const CHECKINS_PER_DEVICE = 8;

const fleet = createFleet({ devices: DEVICES, seed: 42, eventChance: 0.6, intervalMs: 5 * 60_000 });
const messages: FleetMessage[] = Array.from({ length: DEVICES * CHECKINS_PER_DEVICE }, () => fleet.next());

const referenceData = {
  organizations: [{ OrganizationID: 'prop', name: 'Property Utility', MaskFaultDetails: false, timezone: 'UTC' }],
  powerLines: [], groups: [], users: [],
  devices: fleet.imeis.map((imei, i) => ({ IMEINumber: imei, OrganizationID: 'prop', Real_Name: `Pole ${i}`, Lat: 41 + i / 100, Long: -87, dnp3QueueAddress: 'dnp3.prop' })),
  integrations: [{ id: 'prop-oms', OrganizationID: 'prop', kind: 'multispeak', channel: 'C', endpoint: 'http://127.0.0.1:9/soap', operation: 'SCADAAnalogChangedNotificationByPointID', version: '4.1', userId: 'u', password: 'p-secret-1' }],
};

/**
 * A transport whose consumers fail a batch with probability `p`: half of the failures before the stage saw
 * it, half after its work (outputs sent, rows written) but before the commit. Both mean redelivery.
 */
function flaky(inner: Transport, random: () => number, p: number): Transport {
  return {
    ...inner,
    subscribe: <V>(options: SubscribeOptions<V>) => inner.subscribe<V>({
      ...options,
      async eachBatch(batch, controls) {
        if (random() < p / 2) throw new Error('injected failure before the work');
        await options.eachBatch(batch, controls);
        if (random() < p / 2) throw new Error('injected crash after the work, before the commit');
      },
    }),
  };
}

async function run(stream: FleetMessage[], transport: Transport, split: readonly ChainStage[] = []): Promise<Record<string, unknown[]>> {
  const db = await createTestDatabase('prop');
  try {
    await importReferenceData(db.pool, referenceData, { keyring: testKeyring() });
    const pipe = await startTestPipeline(transport, db.pool, { split });
    for (let i = 0; i < stream.length; i += 25) {
      await pipe.feed(stream.slice(i, i + 25).map((m, j) => ({ name: `m${i + j}-${m.sequence}`, body: JSON.stringify(m.message) })));
    }
    await pipe.drain(120_000);
    await pipe.stop();
    return await canonical(db.pool);
  } finally {
    await transport.close();
    await db.drop();
  }
}

/** The stored result without what legitimately differs between runs: generated ids, insert times, message ids. */
async function canonical(pool: pg.Pool): Promise<Record<string, unknown[]>> {
  const q = async (sql: string) => (await pool.query(sql)).rows.map((r) => JSON.parse(JSON.stringify(r)) as unknown);
  const recordKey = `(select r."IMEINumber" || '@' || r."date" from device_records r where r."RecordID" = x."DeviceRecordID")`;
  return {
    records: await q(`select * from device_records order by "IMEINumber", "date"`).then((rows) => rows.map((r) => {
      const { RecordID: _id, CreatedDate: _c, source_message_id: _m, ...rest } = r as Record<string, unknown>;
      return rest;
    })),
    events: await q(`select "IMEINumber", "EventID", "EventTimestamp", "EventType", "PrefaultCurrent", "FaultCurrent", "RecoverCurrent", "PacketTimestamp", "ReportedEventTimestamp", "TimestampShifted", ${recordKey} as record
                       from event_records x order by "IMEINumber", "EventID", "ReportedEventTimestamp"`),
    currents: await q(`select * from device_currents order by "IMEINumber", "PacketTimestamp"`),
    alerts: await q(`select "IMEINumber", "oldModel", "newModel", "at", ${recordKey} as record from model_change_alerts x order by "IMEINumber", "at"`),
    outbox: await q(`select integration_id, "IMEINumber", kind, dedup_key, payload from outbox order by integration_id, dedup_key`),
    lastCheckIn: await q(`select "IMEINumber", "LastCheckInTime" from device_information order by 1`),
    rejected: await q(`select message_id from rejected_messages order by 1`),
  };
}

/** Devices interleaved at random; each device's own messages stay in order; some resent by the device later. */
function chaos(seed: number): FleetMessage[] {
  const random = seededRandom(seed);
  const queues = new Map<string, FleetMessage[]>();
  for (const m of messages) queues.set(m.imei, [...(queues.get(m.imei) ?? []), m]);
  const out: FleetMessage[] = [];
  const pending: FleetMessage[] = [];
  while ([...queues.values()].some((q) => q.length)) {
    const live = [...queues.values()].filter((q) => q.length);
    const m = live[random.int(0, live.length - 1)]!.shift()!;
    out.push(m);
    if (random.chance(0.25)) pending.push(m);
    // A resend arrives right away or after later messages of the same device.
    if (pending.length && random.chance(0.3)) out.push(pending.splice(random.int(0, pending.length - 1), 1)[0]!);
  }
  return [...out, ...pending];
}

let reference: Record<string, unknown[]>;

test('reference: each distinct message once, in order', async () => {
  reference = await run(messages, memoryTransport({ codec: localAvroCodec(), partitions: 4 }));
  assert.is(reference.records!.length, DEVICES * CHECKINS_PER_DEVICE);
  assert.ok(reference.events!.length > 50, `the stream has events (${reference.events!.length})`);
});

const SHAPES: { name: string; split: ChainStage[] }[] = [{ name: 'chained', split: [] }, { name: 'cut at persist', split: ['persist'] }, { name: 'fully split', split: CHAIN.slice(1) }];
for (const seed of [1, 2, 3]) {
  const shape = SHAPES[seed - 1]!;
  test(`seed ${seed}, ${shape.name}: random interleaving, resends and redelivered batches store the same result`, async () => {
    const random = seededRandom(1000 + seed);
    const stream = chaos(seed);
    assert.ok(stream.length > messages.length, 'the stream has resends');
    const transport = flaky(memoryTransport({ codec: localAvroCodec(), partitions: 4, retryDelayMs: 5 }), () => random.next(), 0.3);
    const result = await run(stream, transport, shape.split);
    for (const table of Object.keys(reference)) assert.equal(result[table], reference[table], table);
  });
}

test.run();
