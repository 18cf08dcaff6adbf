// The Kafka layer on /metrics (the process registry /metrics serves), on the real broker: a stage's group
// counts its rebalances and the partitions it owns; lag per partition and lag in seconds rise while the
// consumer is stopped and fall to 0 once it runs again. And kafkajs's own errors reach the transport's log.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel } from 'kafkajs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { registry } from '../../../config/metrics.js';
import { TOPICS } from '../../../schemas/avro/topics.js';
import type { RawMessage } from '../../../schemas/avro/values.js';
import { localAvroCodec } from '../../../stages/runtime/codec.js';
import { exposeConsumerLag } from '../../../stages/runtime/lag-metric.js';
import { runStage } from '../../../stages/runtime/runner.js';
import { emptyResult, type Stage } from '../../../stages/runtime/stage.js';
import { kafkaTransport } from '../../../stages/runtime/transport/kafka.js';
import type { Subscription, Transport } from '../../../stages/runtime/transport/transport.js';
import { brokers, testKafkaTransport } from '../../../support/kafka.js';
import { waitFor } from '../../../support/wait-for.js';

const namespace = `metrics-${randomUUID().slice(0, 8)}`;
const group = `${namespace}.faultline.probe`;
let transport: Transport;
const subscriptions = new Map<string, Subscription>();

const probe: Stage<RawMessage> = { name: 'probe', input: TOPICS.raw, outputs: [], handle: async () => emptyResult() };

/** The value of one series of a metric, by its labels (undefined: no such series). */
async function value(name: string, labels: Record<string, string>): Promise<number | undefined> {
  const metric = registry.getSingleMetric(name);
  assert.ok(metric, `${name} is registered`);
  const { values } = await metric.get();
  return values.find((v) => Object.entries(labels).every(([k, l]) => String(v.labels[k]) === l))?.value;
}

const send = (n: number) => transport.producer().send(Array.from({ length: n }, (_, i) => {
  const value: RawMessage = { messageId: `m-${Date.now()}-${i}`, source: 'spool', receivedAt: Date.now(), imei: `86100000000${String(i % 10).padStart(4, '0')}`, body: '{}' };
  return { topic: TOPICS.raw, key: value.imei, value };
}));

test.before(async () => {
  transport = await testKafkaTransport(3, namespace);
  exposeConsumerLag(subscriptions);
});

test.after(async () => {
  for (const s of subscriptions.values()) await s.stop();
  await transport?.close();
  const admin = new Kafka({ brokers: brokers(), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  const mine = (await admin.listTopics()).filter((t) => t.startsWith(`${namespace}.`));
  if (mine.length) await admin.deleteTopics({ topics: mine }).catch(() => {});
  await admin.deleteGroups([group]).catch(() => {});
  await admin.disconnect();
});

test('a running consumer: rebalance counted, every partition owned, lag 0 in records and seconds', async () => {
  subscriptions.set('probe', await runStage(probe, { transport }));
  await send(30);
  await waitFor('the probe to catch up', async () => (await value('faultline_consumer_lag_records', { consumer: 'probe' })) === 0, { timeoutMs: 60_000, intervalMs: 200 });
  assert.ok((await value('faultline_kafka_rebalances_total', { group }))! >= 1);
  assert.is(await value('faultline_kafka_assigned_partitions', { group, topic: `${namespace}.${TOPICS.raw}` }), 3);
  for (const partition of ['0', '1', '2']) assert.is(await value('faultline_consumer_partition_lag_records', { consumer: 'probe', partition }), 0, partition);
  assert.is(await value('faultline_consumer_lag_seconds', { consumer: 'probe' }), 0);
});

test('stopped: lag in records per partition, lag in seconds rising; started again: a rebalance, then both fall to 0', async () => {
  const rebalancesBefore = (await value('faultline_kafka_rebalances_total', { group }))!;
  await subscriptions.get('probe')!.stop();
  assert.is(await value('faultline_kafka_assigned_partitions', { group, topic: `${namespace}.${TOPICS.raw}` }), 0);
  await value('faultline_consumer_lag_seconds', { consumer: 'probe' });
  await send(30);
  const perPartition = async () => {
    let sum = 0;
    for (const partition of ['0', '1', '2']) sum += (await value('faultline_consumer_partition_lag_records', { consumer: 'probe', partition })) ?? 0;
    return sum;
  };
  assert.is(await perPartition(), 30);
  assert.is(await value('faultline_consumer_lag_records', { consumer: 'probe' }), 30);
  // The records wait: their age grows with the clock (a lower bound, from the scrape that first saw them).
  const ages: number[] = [];
  for (let i = 0; i < 3; i++) {
    ages.push((await value('faultline_consumer_lag_seconds', { consumer: 'probe' }))!);
    await sleep(1500);
  }
  assert.ok(ages[2]! > ages[1]! && ages[1]! > ages[0]! && ages[2]! >= 2, `rising: ${ages.join(', ')}`);

  subscriptions.set('probe', await runStage(probe, { transport }));
  await waitFor('lag in seconds back to 0', async () => (await value('faultline_consumer_lag_seconds', { consumer: 'probe' })) === 0, { timeoutMs: 60_000, intervalMs: 200 });
  assert.is(await perPartition(), 0);
  assert.ok((await value('faultline_kafka_rebalances_total', { group }))! > rebalancesBefore, 'the new member\'s join was counted');
});

test("kafkajs's own errors reach the transport's log (warn and above), with its namespace", async () => {
  const lines: { level: string; message: string; extra?: Record<string, unknown> }[] = [];
  const unreachable = kafkaTransport({ brokers: ['127.0.0.1:1'], codec: localAvroCodec(), log: (level, message, extra) => lines.push({ level, message, extra }) });
  try {
    assert.is(await unreachable.ready(), false);
  } finally {
    await unreachable.close();
  }
  assert.ok(lines.some((l) => l.level === 'error' && typeof l.extra?.kafkajs === 'string' && /connect|Connection/i.test(l.message)), JSON.stringify(lines.slice(0, 3)));
  assert.ok(lines.every((l) => l.level === 'warn' || l.level === 'error'));
});

test.run();
