// A stage's subscription to one topic: a kafkajs consumer in the stage's group, committing only by hand
// (batch.ts), its partitions tracked (membership.ts), and its lag with the time of the oldest unprocessed record.
import type { EachBatchPayload } from 'kafkajs';
import type { SubscribeOptions, Subscription } from '../transport.js';
import { handleBatch, withHeartbeat } from './batch.js';
import type { KafkaClient } from './client.js';
import { groupLag } from './groups.js';
import { rejoinAfterCrash, trackOwnership } from './membership.js';

export interface ConsumerSettings { sessionTimeoutMs: number; concurrency: number }

export async function subscribe<V>(client: KafkaClient, settings: ConsumerSettings, opts: SubscribeOptions<V>): Promise<Subscription> {
  const { sessionTimeoutMs, concurrency } = settings;
  const topic = client.names.topic(opts.topic);
  const groupId = client.names.group(opts.groupId);
  const consumer = client.kafka.consumer({
    groupId,
    sessionTimeout: sessionTimeoutMs,
    heartbeatInterval: Math.floor(sessionTimeoutMs / 10),
    allowAutoTopicCreation: false,
    maxBytesPerPartition: 4 * 1024 * 1024,
    // How long a fetch waits for records when there are none: also how long leaving the group waits for
    // the fetch in flight (kafkajs's 5 s default made every replay and every shutdown 5 s longer).
    maxWaitTimeInMs: 500,
  });
  client.consumers.add(consumer);
  // Per partition, the first record of the batch in hand: while it is not committed, the oldest unprocessed one.
  const heads = new Map<number, { offset: string; timestamp: number }>();

  const startAt = opts.fromTimestamp === undefined ? null
    : new Map((await client.admin().then((a) => a.fetchTopicOffsetsByTimestamp(topic, opts.fromTimestamp))).map((p) => [p.partition, p.offset]));
  const ownership = trackOwnership(consumer, topic, groupId, opts, startAt);

  let running = true;
  const wanted = () => running;
  const join = async () => {
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: opts.fromBeginning ?? true });
    await consumer.run({ autoCommit: false, eachBatchAutoResolve: false, partitionsConsumedConcurrently: concurrency, eachBatch });
  };
  rejoinAfterCrash(consumer, { group: groupId, topic }, ownership, join, wanted, client.log);

  const batchContext = { client, consumer, opts, wanted, settled: ownership.settled };
  const eachBatch = async (payload: EachBatchPayload) => {
    const first = payload.batch.messages[0];
    if (first) heads.set(payload.batch.partition, { offset: first.offset, timestamp: Number(first.timestamp) });
    await withHeartbeat(payload, sessionTimeoutMs, () => handleBatch(batchContext, payload));
  };

  await join();

  return {
    async lag() {
      return (await groupLag(client, opts.groupId, opts.topic)).map((p) => {
        const head = heads.get(p.partition);
        return head?.offset === p.next && BigInt(p.next) < BigInt(p.end) ? { ...p, oldestTimestamp: head.timestamp } : p;
      });
    },
    async stop() {
      if (!running) return;
      running = false;
      await consumer.disconnect();
      client.consumers.delete(consumer);
      await ownership.release();
    },
  };
}
