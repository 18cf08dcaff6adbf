// Schemas evolve across replays (docs/decisions.md#schema-evolution), on the real broker and registry: the next
// release's fi.raw.v1 adds an optional field; records are written under both versions; today's stages and
// the next release's each read all of them (decoded into their own schema) and a replay of the whole log
// through either leaves every table as it was. A namespace keeps this deployment's topics and subjects apart.
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { infraEnv } from '../../../infra/endpoints.js';
import { optional } from '../../../schemas/avro/records.js';
import { TOPIC_SCHEMAS, TOPICS } from '../../../schemas/avro/topics.js';
import type { RawMessage } from '../../../schemas/avro/values.js';
import { createRegistry } from '../../../schemas/registry.js';
import { DEFAULT_DEAD_LETTER_BODY_BYTES, DEFAULT_MAX_BODY_BYTES, decide } from '../../../stages/bridge/index.js';
import { replay } from '../../../stages/replay.js';
import { registryCodec } from '../../../stages/runtime/codec.js';
import { kafkaTransport } from '../../../stages/runtime/transport/kafka.js';
import { kafkaNames } from '../../../stages/runtime/transport/names.js';
import type { Transport } from '../../../stages/runtime/transport/transport.js';
import { fixtureNames, fixtureText } from '../../../support/checkins.js';
import { createTestDatabase, dumpTables, type TestDatabase } from '../../../support/database.js';
import { brokers } from '../../../support/kafka.js';
import { startTestPipeline, type TestPipeline } from '../../../support/pipeline.js';
import { importDemoData } from '../../../support/reference-data.js';
import { waitFor } from '../../../support/wait-for.js';

const namespace = `evo-${randomUUID().slice(0, 8)}`;
const names = kafkaNames(namespace);
const registryUrl = process.env.SCHEMA_REGISTRY_URL ?? infraEnv().SCHEMA_REGISTRY_URL!;
// The next release: fi.raw.v1 gains an optional field (the only kind of change the rules allow).
const NEXT_RAW = { ...TOPIC_SCHEMAS[TOPICS.raw], fields: [...(TOPIC_SCHEMAS[TOPICS.raw].fields as unknown[]), optional('gatewayId', 'string', 'the cellular gateway that relayed the message')] };

let db: TestDatabase;
let today: Transport;
let next: Transport;
let pipe: TestPipeline | null = null;

const transportWith = async (schemas: typeof TOPIC_SCHEMAS) =>
  kafkaTransport({ brokers: brokers(), codec: await registryCodec(createRegistry(registryUrl), names, schemas), names, partitions: 3, sessionTimeoutMs: 10_000 });

test.before(async () => {
  db = await createTestDatabase('evo');
  await importDemoData(db.pool);
  // Today's release registers version 1 of every subject; the next release then registers fi.raw.v1's version 2.
  today = await transportWith(TOPIC_SCHEMAS);
  next = await transportWith({ ...TOPIC_SCHEMAS, [TOPICS.raw]: NEXT_RAW });
  await today.ensureTopics(Object.values(TOPICS));
});

test.after(async () => {
  await pipe?.stop();
  await today?.close();
  await next?.close();
  await db?.drop();
  const admin = new Kafka({ brokers: brokers(), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  const mine = (await admin.listTopics()).filter((t) => t.startsWith(`${namespace}.`));
  if (mine.length) await admin.deleteTopics({ topics: mine }).catch(() => {});
  await admin.disconnect();
});

/** The well-formed fixtures as the bridge writes them to fi.raw.v1. */
const rawRecords = (): RawMessage[] => fixtureNames().flatMap((name) => {
  const d = decide({ messageId: name, body: fixtureText(name), source: 'spool' }, { maxBodyBytes: DEFAULT_MAX_BODY_BYTES, deadLetterBodyBytes: DEFAULT_DEAD_LETTER_BODY_BYTES, receivedAt: Date.now() });
  return d.kind === 'raw' ? [d.value] : [];
});

/** Every value of the deployment's fi.raw.v1 as `transport` decodes it, by messageId (originals only). */
async function readRaw(transport: Transport, count: number): Promise<Map<string, Record<string, unknown>>> {
  const seen = new Map<string, Record<string, unknown>>();
  const group = `evo-reader-${randomUUID().slice(0, 8)}`;
  const sub = await transport.subscribe<Record<string, unknown>>({
    groupId: group, topic: TOPICS.raw, fromBeginning: true,
    async eachBatch({ messages }) { for (const m of messages) if (m.value.source === 'spool') seen.set(m.value.messageId as string, m.value); },
  });
  try {
    await waitFor(`${count} raw records`, async () => seen.size >= count, { timeoutMs: 60_000 });
  } finally {
    await sub.stop();
    await transport.deleteGroup(group);
  }
  return seen;
}

test('records written under both versions reach both readers, each in its own schema', async () => {
  const records = rawRecords();
  // Even fixtures by today's release, odd ones by the next (with the new field set), one at a time so each
  // device's check-ins stay in order whichever producer wrote them.
  for (const [i, value] of records.entries()) {
    if (i % 2 === 0) await today.producer().send([{ topic: TOPICS.raw, key: value.imei, value }]);
    else await next.producer().send([{ topic: TOPICS.raw, key: value.imei, value: { ...value, gatewayId: `gw-${i}` } }]);
  }
  const nextView = await readRaw(next, records.length);
  const todayView = await readRaw(today, records.length);
  for (const [i, { messageId }] of records.entries()) {
    // The next release reads today's records with the new field at its default, its own with the value.
    assert.is(nextView.get(messageId)?.gatewayId, i % 2 === 0 ? null : `gw-${i}`, messageId);
    // Today's release reads the next one's records without the field it does not know.
    assert.not.ok(Object.hasOwn(todayView.get(messageId)!, 'gatewayId'), messageId);
    assert.is(todayView.get(messageId)?.body, records[i]!.body);
  }
});

test("today's stages store every record of both versions, and a replay of all of them leaves every table as it was", async () => {
  pipe = await startTestPipeline(today, db.pool);
  await pipe.drain(120_000);
  const stored = await dumpTables(db.pool);
  // Every well-formed fixture is stored (the unknown device's too): one device record per distinct IMEI and date.
  const expected = new Set(rawRecords().map((r) => { const d = (JSON.parse(r.body) as { device_data: { IMEINumber: string; date: string } }).device_data; return `${d.IMEINumber}/${Date.parse(d.date)}`; }));
  assert.is((stored.device_records ?? []).length, expected.size);
  const result = await replay({ transport: today, from: 0, pollMs: 100 });
  assert.equal([result.total, result.resent, result.caughtUp], [rawRecords().length, rawRecords().length, true]);
  assert.equal(await dumpTables(db.pool), stored);
});

test("the next release's stages replay the same log (originals of both versions and today's copies) with the same outcome", async () => {
  const before = await dumpTables(db.pool);
  await pipe!.stop();
  pipe = await startTestPipeline(next, db.pool);
  await pipe.drain(120_000);
  const result = await replay({ transport: next, from: 0, pollMs: 100 });
  const n = rawRecords().length;
  assert.equal([result.total, result.copiesSkipped, result.resent, result.caughtUp], [2 * n, n, n, true]);
  assert.equal(await dumpTables(db.pool), before);
});

test.run();
