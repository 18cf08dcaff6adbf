// The CI check of schema changes (schemas/released.ts): every pipeline topic's current schema reads records of
// EVERY released version of it (BACKWARD_TRANSITIVE), and a change that does not is refused with a reason.
// The same rule on the real registry: test/integration/infra/schema-compatibility.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { optional, required, type AvroSchema } from '../../schemas/avro/records.js';
import { TOPIC_SCHEMAS, TOPICS } from '../../schemas/avro/topics.js';
import { releasedVersions, releaseProblems, unreadableVersions } from '../../schemas/released.js';

const raw = TOPIC_SCHEMAS[TOPICS.raw];
const withFields = (schema: AvroSchema, ...fields: unknown[]): AvroSchema => ({ ...schema, fields: [...(schema.fields as unknown[]), ...fields] });

test('every pipeline topic has released versions, and its current schema reads records of all of them', () => {
  for (const topic of Object.values(TOPICS)) assert.ok(releasedVersions(topic).length >= 1, `${topic}: released versions`);
  assert.equal(releaseProblems(), []);
});

test('a new required field (no default) is refused: records written before it cannot be read', () => {
  const problems = releaseProblems({ ...TOPIC_SCHEMAS, [TOPICS.raw]: withFields(raw, required('gatewayId', 'string')) });
  assert.is(problems.length, 1, problems.join('\n'));
  assert.match(problems[0]!, 'fi.raw.v1: the current schema cannot read records of released version 1 (schemas/released/fi.raw.v1/1.avsc)');
});

test('a field whose type changed is refused; a new optional field and a removed optional one are accepted', () => {
  const retyped = { ...raw, fields: (raw.fields as { name: string }[]).map((f) => (f.name === 'receivedAt' ? { ...f, type: 'string' } : f)) };
  assert.is(releaseProblems({ [TOPICS.raw]: retyped }).length, 1);
  assert.equal(releaseProblems({ [TOPICS.raw]: withFields(raw, optional('gatewayId', 'string')) }), []);
  const dlq = TOPIC_SCHEMAS[TOPICS.dlq];
  const withoutImei = { ...dlq, fields: (dlq.fields as { name: string }[]).filter((f) => f.name !== 'imei') };
  assert.equal(releaseProblems({ [TOPICS.dlq]: withoutImei }), []);
});

test('every released version is checked, not only the last (transitive)', () => {
  // v2 adds c with a default; the candidate makes c required. It reads v2's records (they carry c) but not v1's.
  const v1 = raw;
  const v2 = withFields(raw, { name: 'c', type: 'int', default: 0 });
  const candidate = withFields(raw, { name: 'c', type: 'int' });
  assert.equal(unreadableVersions(candidate, [{ version: 2, schema: v2 }]), [], 'compatible with the last version alone');
  const refused = unreadableVersions(candidate, [{ version: 1, schema: v1 }, { version: 2, schema: v2 }]);
  assert.equal(refused.map((r) => r.version), [1]);
});

test('a topic that was never released is named', () => {
  assert.match(releaseProblems({ 'fi.new.v1': raw }).join(), 'fi.new.v1: no released version');
});

test.run();
