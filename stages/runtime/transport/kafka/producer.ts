// The Kafka producer one caller (a stage, a source) sends through: acknowledged by every in-sync replica,
// one request in flight per broker (so retries do not reorder a partition), and sends that arrive while one
// is in flight go together in one request.
import type { Producer as KafkaProducer } from 'kafkajs';
import type { AcknowledgedSend } from '../acknowledged-send.js';
import type { OutMessage, Producer } from '../transport.js';
import type { KafkaClient } from './client.js';

// Not idempotent, on purpose (docs/decisions.md#producers-are-not-idempotent). kafkajs 2.2.4 numbers each
// partition's batches for an idempotent producer and takes the numbers back when a request fails, even for
// the partitions the broker wrote, and its own retries can leave a failed request behind that takes them back
// after the send was answered. The next batch then carries numbers the broker already holds and is answered
// "duplicate": acknowledged, never written. Without idempotence the broker keeps no numbers, so an
// acknowledged batch is a written batch; what a retry writes twice, the pipeline's unique keys absorb, as
// they absorb an SQS message delivered again. One per caller (each stage, each source): with one request in
// flight per broker, a shared one would make every stage wait for the others' round trips.
function connectProducer(client: KafkaClient, acknowledged: AcknowledgedSend): () => Promise<KafkaProducer> {
  let attempt: Promise<KafkaProducer> | null = null; // also in client.producers, which close() disconnects
  return () => {
    if (!attempt) {
      const mine: Promise<KafkaProducer> = (async () => {
        const p = client.kafka.producer({ idempotent: false, maxInFlightRequests: 1, allowAutoTopicCreation: false, createPartitioner: acknowledged.createPartitioner });
        await p.connect();
        return p;
      })();
      attempt = mine;
      client.producers.add(mine);
      mine.catch(() => { if (attempt === mine) attempt = null; client.producers.delete(mine); });
    }
    return attempt;
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
        const p = await producer();
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
