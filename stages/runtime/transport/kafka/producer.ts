// The Kafka producer one caller (a stage, a source) sends through: idempotent, acknowledged by every in-sync
// replica, and sends that arrive while one is in flight go together in one request.
import type { Producer as KafkaProducer } from 'kafkajs';
import type { AcknowledgedSend } from '../acknowledged-send.js';
import type { OutMessage, Producer } from '../transport.js';
import type { KafkaClient } from './client.js';

// Idempotent producers: acks from all in-sync replicas, no reordering on retry (maxInFlightRequests 1), so
// per-key order survives a broker hiccup. One per caller (each stage, each source): with one in-flight
// request per producer, a shared one would make every stage wait for the others' round trips.
//
// A producer whose send failed is never used again. kafkajs numbers each partition's batches before a
// request and takes the numbers back when the request fails, even for the partitions the broker wrote (a
// leader that moved answers NOT_LEADER for one partition of a request and writes the others). The next send
// would then reuse numbers the broker already holds: with as many records it is answered as a duplicate and
// never written (records lost, though acknowledged), otherwise refused as out of order until restart. A new
// producer gets a new producer id, so no number of the failed one can match (docs/decisions.md#producer-after-failure).
function connectProducer(client: KafkaClient, acknowledged: AcknowledgedSend): { get: () => Promise<KafkaProducer>; discard: () => void } {
  let attempt: Promise<KafkaProducer> | null = null; // the producer of the moment, also in client.producers
  return {
    get() {
      if (!attempt) {
        const mine: Promise<KafkaProducer> = (async () => {
          const p = client.kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false, createPartitioner: acknowledged.createPartitioner });
          await p.connect();
          return p;
        })();
        attempt = mine;
        client.producers.add(mine);
        mine.catch(() => { if (attempt === mine) attempt = null; client.producers.delete(mine); });
      }
      return attempt;
    },
    discard() {
      const old = attempt;
      attempt = null;
      if (old) void old.then((p) => { client.producers.delete(old); return p.disconnect(); }).catch(() => {});
    },
  };
}

type Waiting = { records: { topic: string; key: string; value: Buffer }[]; done: (err?: unknown) => void };

export function groupCommitProducer(client: KafkaClient, acknowledged: AcknowledgedSend): Producer {
  const producer = connectProducer(client, acknowledged);
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
        const p = await producer.get();
        await acknowledged.send(
          (topicMessages) => p.sendBatch({ acks: -1, topicMessages }),
          [...byTopic(group)].map(([topic, messages]) => ({ topic: client.names.topic(topic), messages })),
          (unanswered) => client.log('warn', 'Kafka acknowledged a send without some of its partitions; sending their records again', { unanswered }),
        );
        for (const g of group) g.done();
      } catch (err) {
        producer.discard(); // its batch numbers may no longer match the broker's (above)
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
