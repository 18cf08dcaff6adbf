// Two deployments on one Kafka cluster and one schema registry, told apart by KAFKA_NAMESPACE: each stores only
// its own check-ins, joins only its own consumer groups and registers its own subjects.
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { infraEnv } from '../../../infra/endpoints.js';
import { TOPICS } from '../../../schemas/avro/topics.js';
import { loadSettings } from '../../../config/settings.js';
import type { Transport } from '../../../stages/runtime/transport/transport.js';
import { fixtureNames, fixtureText } from '../../../support/checkins.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { brokers, listGroups, testKafkaTransport } from '../../../support/kafka.js';
import { startTestPipeline, type TestPipeline } from '../../../support/pipeline.js';
import { importDemoData } from '../../../support/reference-data.js';

interface Deployment { namespace: string; db: TestDatabase; transport: Transport; pipe: TestPipeline }
const deployments: Deployment[] = [];

async function deploy(label: string): Promise<Deployment> {
  const namespace = `${label}-${randomUUID().slice(0, 8)}`;
  const db = await createTestDatabase(`ns${label}`);
  await importDemoData(db.pool);
  const transport = await testKafkaTransport(3, namespace);
  const d = { namespace, db, transport, pipe: await startTestPipeline(transport, db.pool) };
  deployments.push(d);
  return d;
}

const records = async (d: Deployment) => (await d.db.pool.query<{ n: number }>('select count(*)::int as n from device_records')).rows[0]!.n;

test.after(async () => {
  const admin = new Kafka({ brokers: brokers(), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  for (const d of deployments) {
    await d.pipe.stop();
    await d.transport.close();
    await d.db.drop();
    const mine = (await admin.listTopics()).filter((t) => t.startsWith(`${d.namespace}.`));
    if (mine.length) await admin.deleteTopics({ topics: mine }).catch(() => {});
  }
  await admin.disconnect();
});

test('namespaces a and b share the cluster: each stores only what was sent to it', async () => {
  const [a, b] = [await deploy('a'), await deploy('b')];
  const names = fixtureNames();
  // a gets the first half of the fixtures, b the rest.
  const half = Math.ceil(names.length / 2);
  for (const name of names.slice(0, half)) await a.pipe.feed([{ name, body: fixtureText(name) }]);
  for (const name of names.slice(half)) await b.pipe.feed([{ name, body: fixtureText(name) }]);
  await a.pipe.drain(60_000);
  await b.pipe.drain(60_000);

  const sourcesOf = async (d: Deployment) => new Set((await d.db.pool.query<{ m: string }>('select source_message_id as m from device_records')).rows.map((r) => r.m));
  const [inA, inB] = [await sourcesOf(a), await sourcesOf(b)];
  assert.ok(inA.size > 0 && inB.size > 0, 'both stored something');
  assert.ok([...inA].every((m) => names.slice(0, half).includes(m)), `a stored only its own: ${[...inA].join(', ')}`);
  assert.ok([...inB].every((m) => names.slice(half).includes(m)), `b stored only its own: ${[...inB].join(', ')}`);
  assert.ok(await records(a) > 0 && await records(b) > 0);
});

test('topics, consumer groups and registry subjects carry the namespace', async () => {
  const admin = new Kafka({ brokers: brokers(), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const topics = new Set(await admin.listTopics());
    const groups = await listGroups();
    for (const d of deployments) {
      assert.ok(topics.has(`${d.namespace}.${TOPICS.raw}`), `${d.namespace}: raw topic`);
      // The chained pipeline: one group reads fi.raw.v1, one the dead letters.
      for (const stage of ['enrich', 'rejected']) {
        const group = `${d.namespace}.faultline.${stage}`;
        assert.ok(groups.includes(group), `${group} exists`);
        const { groups: [described] } = await admin.describeGroups([group]);
        assert.is(described!.members.length, 1, `${group}: only this deployment's consumer is a member`);
      }
    }
    const registry = process.env.SCHEMA_REGISTRY_URL ?? infraEnv().SCHEMA_REGISTRY_URL!;
    const subjects = (await (await fetch(`${registry}/subjects`)).json()) as string[];
    for (const d of deployments) assert.ok(subjects.includes(`${d.namespace}.${TOPICS.raw}-value`), `${d.namespace}: its own subject`);
  } finally {
    await admin.disconnect();
  }
});

test('KAFKA_NAMESPACE is checked where settings are read', () => {
  assert.is(loadSettings({ KAFKA_NAMESPACE: 'north-prod' }).kafkaNamespace, 'north-prod');
  assert.is(loadSettings({}).kafkaNamespace, '');
  assert.throws(() => loadSettings({ KAFKA_NAMESPACE: 'north prod' }), /KAFKA_NAMESPACE: "north prod" must be/);
});

test.run();
