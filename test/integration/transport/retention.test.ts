// fi.raw.v1's retention (RAW_RETENTION_DAYS, docs/replay.md) on the real broker: set when the topic is created,
// an existing topic's changed to it with a warning naming both values and its other settings kept, nothing
// done when it already matches; other topics keep the broker's default.
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadSettings } from '../../../config/settings.js';
import { TOPICS } from '../../../schemas/avro/topics.js';
import { localAvroCodec } from '../../../stages/runtime/codec.js';
import { kafkaTransport } from '../../../stages/runtime/transport/kafka.js';
import { kafkaNames } from '../../../stages/runtime/transport/names.js';
import type { Transport } from '../../../stages/runtime/transport/transport.js';
import { brokers } from '../../../support/kafka.js';

const DAY = 86_400_000;
const namespace = `retention-${randomUUID().slice(0, 8)}`;
const names = kafkaNames(namespace);
const opened: Transport[] = [];
const lines: { level: string; message: string }[] = [];

const transport = (rawDays: number) => {
  const t = kafkaTransport({ brokers: brokers(), codec: localAvroCodec(), names, partitions: 1, retentionMs: { [TOPICS.raw]: rawDays * DAY }, log: (level, message) => lines.push({ level, message }) });
  opened.push(t);
  return t;
};

async function topicConfig(topic: string): Promise<Record<string, string>> {
  const admin = new Kafka({ brokers: brokers(), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const { resources } = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: 2, name: names.topic(topic) }] });
    return Object.fromEntries(resources[0]!.configEntries.map((e) => [e.configName, e.configValue]));
  } finally {
    await admin.disconnect();
  }
}

test.after(async () => {
  for (const t of opened) await t.close();
  const admin = new Kafka({ brokers: brokers(), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  const mine = (await admin.listTopics()).filter((t) => t.startsWith(`${namespace}.`));
  if (mine.length) await admin.deleteTopics({ topics: mine }).catch(() => {});
  await admin.disconnect();
});

test('RAW_RETENTION_DAYS: 30 by default, a positive number of days, anything else refused', () => {
  assert.is(loadSettings({}).rawRetentionDays, 30);
  assert.is(loadSettings({ RAW_RETENTION_DAYS: '7.5' }).rawRetentionDays, 7.5);
  assert.throws(() => loadSettings({ RAW_RETENTION_DAYS: '0' }), /RAW_RETENTION_DAYS: "0" is not a valid value/);
});

test('fi.raw.v1 is created with the retention asked for; the dead-letter topic keeps the broker default', async () => {
  const t = transport(2);
  await t.ensureTopics([TOPICS.raw, TOPICS.dlq]);
  assert.is(await t.retentionMs!(TOPICS.raw), 2 * DAY);
  assert.is.not(await t.retentionMs!(TOPICS.dlq), 2 * DAY);
  assert.equal(lines, []);
});

test("an existing topic's retention is changed to the new setting, with a warning, and its other settings stay", async () => {
  const before = await topicConfig(TOPICS.raw);
  const t = transport(5);
  await t.ensureTopics([TOPICS.raw]);
  assert.is(await t.retentionMs!(TOPICS.raw), 5 * DAY);
  assert.equal(lines, [{ level: 'warn', message: `topic ${names.topic(TOPICS.raw)}: retention.ms changed from ${2 * DAY} to ${5 * DAY}` }]);
  const after = await topicConfig(TOPICS.raw);
  for (const name of ['max.message.bytes', 'min.insync.replicas']) assert.is(after[name], before[name], name);
  // Already as wanted: nothing changes, nothing is said.
  await transport(5).ensureTopics([TOPICS.raw]);
  assert.is(lines.length, 1);
});

test.run();
