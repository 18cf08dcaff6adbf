// The released-schema check (schemas/released.ts) on the real registry: for every pipeline topic, its released
// versions registered in order under a fresh subject with the rule faultline sets (BACKWARD_TRANSITIVE), the
// current schema is accepted; a deliberately incompatible one is refused, including one that only the
// transitive rule catches (compatible with the last version, not with the first).
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { infraEnv } from '../../../infra/endpoints.js';
import { required, type AvroSchema } from '../../../schemas/avro/records.js';
import { TOPIC_SCHEMAS, TOPICS } from '../../../schemas/avro/topics.js';
import { releasedVersions } from '../../../schemas/released.js';
import { RegistryError, createRegistry, valueSubject } from '../../../schemas/registry.js';

const url = process.env.SCHEMA_REGISTRY_URL ?? infraEnv().SCHEMA_REGISTRY_URL!;
const registry = createRegistry(url);
const run = randomUUID().slice(0, 8);
const subjectOf = (topic: string, label = 'compat') => valueSubject(`${label}-${run}.${topic}`);
const withFields = (schema: AvroSchema, ...fields: unknown[]): AvroSchema => ({ ...schema, fields: [...(schema.fields as unknown[]), ...fields] });

test('every topic: after its released versions, the registry accepts the current schema under BACKWARD_TRANSITIVE', async () => {
  for (const topic of Object.values(TOPICS)) {
    const subject = subjectOf(topic);
    for (const { schema } of releasedVersions(topic)) await registry.register(subject, schema);
    assert.is(await registry.compatibility(subject), 'BACKWARD_TRANSITIVE', subject);
    assert.ok(await registry.compatible(subject, TOPIC_SCHEMAS[topic]), `${topic}: current schema refused`);
    await registry.register(subject, TOPIC_SCHEMAS[topic]);
  }
});

test('a new required field is refused by the registry as by the released check', async () => {
  const subject = subjectOf(TOPICS.raw);
  const incompatible = withFields(TOPIC_SCHEMAS[TOPICS.raw], required('gatewayId', 'string'));
  assert.is(await registry.compatible(subject, incompatible), false);
  const err = await registry.register(subject, incompatible).then(() => null, (e: unknown) => e);
  assert.instance(err, RegistryError);
  assert.is((err as RegistryError).code, 'SCHEMA_INCOMPATIBLE');
});

test('transitive: a schema compatible with the last version but not the first is refused', async () => {
  const subject = subjectOf(TOPICS.raw, 'transitive');
  const raw = TOPIC_SCHEMAS[TOPICS.raw];
  await registry.register(subject, raw);
  await registry.register(subject, withFields(raw, { name: 'c', type: 'int', default: 0 }));
  const candidate = withFields(raw, { name: 'c', type: 'int' });
  // Against the last version alone (what BACKWARD checks) it passes...
  const latest = await fetch(`${url}/compatibility/subjects/${encodeURIComponent(subject)}/versions/latest`, {
    method: 'POST', headers: { 'Content-Type': 'application/vnd.schemaregistry.v1+json' }, body: JSON.stringify({ schema: JSON.stringify(candidate) }),
  });
  assert.equal(await latest.json(), { is_compatible: true });
  // ...against every version it does not, and registering it is refused.
  assert.is(await registry.compatible(subject, candidate), false);
  const err = await registry.register(subject, candidate).then(() => null, (e: unknown) => e);
  assert.is((err as RegistryError).code, 'SCHEMA_INCOMPATIBLE');
});

test('a subject registered before this release under BACKWARD gets BACKWARD_TRANSITIVE before its next version is checked', async () => {
  const subject = subjectOf(TOPICS.raw, 'upgrade');
  const raw = TOPIC_SCHEMAS[TOPICS.raw];
  const older = createRegistry(url, { compatibility: 'BACKWARD' });
  await older.register(subject, raw);
  await older.register(subject, withFields(raw, { name: 'c', type: 'int', default: 0 }));
  assert.is(await older.compatibility(subject), 'BACKWARD');
  const err = await createRegistry(url).register(subject, withFields(raw, { name: 'c', type: 'int' })).then(() => null, (e: unknown) => e);
  assert.is((err as RegistryError | null)?.code, 'SCHEMA_INCOMPATIBLE');
  assert.is(await registry.compatibility(subject), 'BACKWARD_TRANSITIVE');
});

test.run();
