// What fi.raw.v1 costs on disk per check-in (docs/replay.md#how-far-back-it-reaches, RAW_RETENTION_DAYS): simulated check-ins (the
// simulator's fleet, its default mix of events) go through the bridge into a fi.raw.v1 of its own on the
// infra/ broker, and the size of the topic's log segments on disk is divided by the count. One copy: multiply
// by the replication factor, and each replay appends one more copy of what it re-read.
//   node --import tsx bench/raw-size.bench.ts [--messages 20000] [--devices 1000]
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { createFleet } from '../simulator/index.js';
import { createBridge } from '../stages/bridge/index.js';
import { TOPICS } from '../schemas/avro/topics.js';
import { brokers, testKafkaTransport } from '../support/kafka.js';

const { values } = parseArgs({ options: { messages: { type: 'string', default: '20000' }, devices: { type: 'string', default: '1000' } } });
const total = Number(values.messages);
const namespace = `rawsize-${randomUUID().slice(0, 8)}`;
const topic = `${namespace}.${TOPICS.raw}`;
const dataDir = new URL('../.infra/kafka/data/', import.meta.url).pathname;

const transport = await testKafkaTransport(3, namespace);
await transport.ensureTopics([TOPICS.raw]);
const bridge = createBridge({ producer: transport.producer() });
const fleet = createFleet({ devices: Number(values.devices), seed: 29 });
let bodyBytes = 0;
for (let sent = 0; sent < total;) {
  const batch = Array.from({ length: Math.min(500, total - sent) }, () => {
    const { sequence, message } = fleet.next();
    const body = JSON.stringify(message);
    bodyBytes += Buffer.byteLength(body);
    return { messageId: `sim-${namespace}-${String(sequence).padStart(10, '0')}`, body, source: 'sqs' as const };
  });
  await bridge.forward(batch, async () => {});
  sent += batch.length;
}
await transport.close();

// The active segments are on disk once the producer's sends were acknowledged (the page cache counts: stat sees it).
const logBytes = readdirSync(dataDir).filter((d) => d.startsWith(`${topic}-`))
  .flatMap((d) => readdirSync(join(dataDir, d)).filter((f) => f.endsWith('.log')).map((f) => statSync(join(dataDir, d, f)).size))
  .reduce((a, b) => a + b, 0);
const perRecord = logBytes / total;
console.log(`fi.raw.v1: ${total} simulated check-ins, JSON body ${(bodyBytes / total).toFixed(0)} B on average, ${perRecord.toFixed(0)} B per record on disk ` +
  `(Avro envelope, record and batch headers): ${((perRecord * 1e6) / 1e9).toFixed(2)} GB per million check-ins per copy`);

const admin = new Kafka({ brokers: brokers(), logLevel: logLevel.NOTHING }).admin();
await admin.connect();
await admin.deleteTopics({ topics: [topic] }).catch(() => {});
await admin.disconnect();
