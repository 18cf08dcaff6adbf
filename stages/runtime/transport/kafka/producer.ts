// The Kafka producer one caller (a stage, a source) sends through: idempotent, acknowledged by every in-sync
// replica, and sends that arrive while one is in flight go together in one request.
import type { Producer as KafkaProducer } from 'kafkajs';
import type { AcknowledgedSend } from '../acknowledged-send.js';
import type { OutMessage, Producer } from '../transport.js';
import type { KafkaClient } from './client.js';

// Idempotent producers: acks from all in-sync replicas, no reordering on retry (maxInFlightRequests 1), so
// per-key order survives a broker hiccup. One per caller (each stage, each source): with one in-flight
// request per producer, a shared one would make every stage wait for the others' round trips.
function connectProducer(client: KafkaClient, acknowledged: AcknowledgedSend): () => Promise<KafkaProducer> {
  let connecting: Promise<KafkaProducer> | null = null;
  return () => {
    if (!connecting) {
      const attempt: Promise<KafkaProducer> = (async () => {
        const p = client.kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false, createPartitioner: acknowledged.createPartitioner });
        await p.connect();
        return p;
      })();
      connecting = attempt.catch((err: unknown) => { connecting = null; client.producers.delete(attempt); throw err; });
      client.producers.add(attempt);
    }
    return connecting;
  };
}

type Waiting = { records: { topic: string; key: string; value: Buffer }[]; done: (err?: unknown) => void };

export function groupCommitProducer(client: KafkaClient, acknowledged: AcknowledgedSend): Producer {
  const getProducer = connectProducer(client, acknowledged);
  // Sends that arrive while one is in flight wait and then go together in one request (group commit):
  // with one request in flight per producer, the callers sharing it (the bridge's pollers, the partitions a
  // segment works on at once) would otherwise each pay a whole round trip for a few records. Each caller's
  // promise settles with the request that carried its records, so it acknowledges its source only after
  // they were acknowledged, and a caller's records keep their order.
  let waiting: Waiting[] = [];
  let flushing = false;
  const flush = async () => {
    flushing = true;
    while (waiting.length) {
      const group = waiting;
      waiting = [];
      try {
        const p = await getProducer();
        await acknowledged.send(
          (topicMessages) => p.sendBatch({ acks: -1, topicMessages }),
          [...byTopic(group)].map(([topic, messages]) => ({ topic: client.names.topic(topic), messages })),
          (unanswered) => client.log('warn', 'Kafka acknowledged a send without some of its partitions; sending their records again', { unanswered }),
        );
        for (const g of group) g.done();
      } catch (err) {
        for (const g of group) g.done(err);
      }
    }
    flushing = false;
  };
  return {
    async send(messages: OutMessage[]) {
      if (messages.length === 0) return;
      const records = await Promise.all(messages.map(async (m) => ({ topic: m.topic, key: m.key, value: await client.codec.encode(m.topic, m.value) })));
      await new Promise<void>((resolve, reject) => {
        waiting.push({ records, done: (err) => (err === undefined ? resolve() : reject(err as Error)) });
        if (!flushing) void flush();
      });
    },
  };
}

/** The records of the waiting sends by logical topic, each caller's in its order. */
function byTopic(group: Waiting[]): Map<string, { key: string; value: Buffer }[]> {
  const out = new Map<string, { key: string; value: Buffer }[]>();
  for (const { topic, key, value } of group.flatMap((g) => g.records)) {
    let list = out.get(topic);
    if (!list) out.set(topic, (list = []));
    list.push({ key, value });
  }
  return out;
}
