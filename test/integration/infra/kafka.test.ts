// Kafka from infra/up.sh: topic creation, keyed produce, a consumer group that commits, and a second
// member of the same group that resumes after the committed offset.
import { randomUUID } from 'node:crypto';
import { Kafka, Partitioners, logLevel } from 'kafkajs';
import type { Consumer, EachMessagePayload } from 'kafkajs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { infraEnv } from '../../../infra/endpoints.js';
import { pollUntil } from './poll.js';

const brokers = (process.env.KAFKA_BROKERS ?? infraEnv().KAFKA_BROKERS!).split(',');
const kafka = new Kafka({ clientId: 'infra-kafka-test', brokers, logLevel: logLevel.WARN });
const admin = kafka.admin();
const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false });
const consumers: Consumer[] = [];

const topic = `infra-test-${randomUUID()}`;
const groupId = `infra-test-group-${randomUUID()}`;
const KEYS = ['imei-1', 'imei-2', 'imei-3', 'imei-4'];

interface Seen { key: string; value: string; partition: number; offset: string }

/** Joins the group, collects messages until `count` arrived, commits them, leaves. */
async function consumeAndCommit(count: number): Promise<Seen[]> {
  // Short fetch waits: disconnect() waits for the fetch in flight (default up to 5 s).
  const consumer = kafka.consumer({ groupId, sessionTimeout: 10_000, heartbeatInterval: 1000, maxWaitTimeInMs: 100 });
  consumers.push(consumer);
  const seen: Seen[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ partition, message }: EachMessagePayload) => {
      seen.push({ key: message.key?.toString() ?? '', value: message.value?.toString() ?? '', partition, offset: message.offset });
      // Commit the next offset to read, as Kafka expects.
      await consumer.commitOffsets([{ topic, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
    },
  });
  await pollUntil(`${count} messages`, 30_000, () => (seen.length >= count ? true : undefined));
  // Give a stray extra message (a bug: re-delivery of committed offsets) a moment to show up.
  await new Promise((r) => setTimeout(r, 300));
  await consumer.disconnect();
  return seen;
}

test.before(async () => {
  await admin.connect();
  await producer.connect();
});

test.after(async () => {
  for (const c of consumers) await c.disconnect().catch(() => undefined);
  await producer.disconnect();
  await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await admin.disconnect();
});

test('creates a topic with the admin client (auto-create is off)', async () => {
  const created = await admin.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 1 }], waitForLeaders: true });
  assert.ok(created, 'createTopics reported that the topic already existed');
  const meta = await admin.fetchTopicMetadata({ topics: [topic] });
  assert.is(meta.topics[0]?.partitions.length, 3);
});

test('refuses to produce to a topic that does not exist', async () => {
  // No retries: kafkajs would otherwise keep asking for the topic's metadata for ~9 s.
  const quiet = new Kafka({ clientId: 'infra-kafka-test', brokers, logLevel: logLevel.NOTHING }); // the refusal is logged as ERROR
  const once = quiet.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false, retry: { retries: 0 } });
  await once.connect();
  let error: unknown;
  try {
    await once.send({ topic: `infra-missing-${randomUUID()}`, messages: [{ value: 'x' }], acks: -1, timeout: 3000 });
  } catch (err) {
    error = err;
  } finally {
    await once.disconnect();
  }
  assert.ok(error instanceof Error, 'producing to an unknown topic succeeded, so auto.create.topics.enable is on');
});

test('keyed messages land on one partition per key, in order; a group commits and a new member resumes', async () => {
  const batch = (round: number) => KEYS.flatMap((key) => [0, 1, 2].map((i) => ({ key, value: `${key}:${round}:${i}` })));
  await producer.send({ topic, acks: -1, messages: batch(1) });

  const first = await consumeAndCommit(12);
  assert.is(first.length, 12, 'first member saw a different number of messages');
  for (const key of KEYS) {
    const mine = first.filter((m) => m.key === key);
    assert.equal(mine.map((m) => m.value), [0, 1, 2].map((i) => `${key}:1:${i}`), `order of ${key}`);
    assert.is(new Set(mine.map((m) => m.partition)).size, 1, `${key} spread over several partitions`);
  }

  // Every partition's committed offset is its end offset (-1 = nothing committed = an empty partition).
  const committed = await admin.fetchOffsets({ groupId, topics: [topic] });
  const ends = await admin.fetchTopicOffsets(topic);
  for (const { partition, high } of ends) {
    const offset = committed[0]!.partitions.find((p) => p.partition === partition)?.offset ?? '-1';
    assert.is(offset === '-1' ? '0' : offset, high, `committed offset of partition ${partition}`);
  }

  await producer.send({ topic, acks: -1, messages: batch(2) });
  const second = await consumeAndCommit(12);
  assert.equal(second.map((m) => m.value).sort(), batch(2).map((m) => m.value).sort(), 'second member did not resume after the commit');
});

test.run();
