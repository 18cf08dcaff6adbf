// The schema registry from infra/up.sh through schemas/registry.ts: register, wire format round trip,
// an incompatible change refused (409 -> SCHEMA_INCOMPATIBLE), a compatible one accepted.
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import avro from 'avsc';
import { infraEnv } from '../../../infra/endpoints.js';
import { RegistryError, createRegistry, valueSubject } from '../../../schemas/registry.js';

const url = process.env.SCHEMA_REGISTRY_URL ?? infraEnv().SCHEMA_REGISTRY_URL!;
const registry = createRegistry(url);
const subject = valueSubject(`infra-test-${randomUUID()}`);

const v1 = {
  type: 'record', name: 'Reading', namespace: 'faultline.test',
  fields: [{ name: 'imei', type: 'string' }, { name: 'current', type: 'double' }],
};
// A new required field without a default: old data can't be read with it, so BACKWARD refuses it.
const incompatible = { ...v1, fields: [...v1.fields, { name: 'phase', type: 'string' }] };
// The same field with a default: BACKWARD accepts it.
const compatible = { ...v1, fields: [...v1.fields, { name: 'phase', type: 'string', default: 'A' }] };

let id1 = 0;

test('registers a schema under <topic>-value and returns the same id again', async () => {
  id1 = await registry.register(subject, v1);
  assert.ok(Number.isInteger(id1) && id1 > 0, `bad id ${id1}`);
  assert.is(await registry.register(subject, v1), id1);
  assert.is(await registry.compatibility(subject), 'BACKWARD_TRANSITIVE');
});

test('processes starting together register a new subject at once: every one gets the same id and the rule is set', async () => {
  // The production shape starts seven processes that each register every topic's schema on a fresh namespace;
  // Apicurio answered all but the first rule PUT with 409 "rule already exists", which stopped a process.
  const fresh = valueSubject(`infra-test-${randomUUID()}`);
  const ids = await Promise.all(Array.from({ length: 8 }, () => createRegistry(url).register(fresh, v1)));
  assert.equal(new Set(ids).size, 1, `ids ${ids.join(', ')}`);
  assert.is(await registry.compatibility(fresh), 'BACKWARD_TRANSITIVE');
});

test('encodes in the Confluent wire format and decodes it back', async () => {
  const value = { imei: '356938035643809', current: 412.5 };
  const bytes = await registry.encode(id1, value);
  assert.is(bytes[0], 0, 'magic byte');
  assert.is(bytes.readUInt32BE(1), id1, '4-byte big-endian schema id');
  assert.ok(bytes.length > 5);
  const back = await registry.decode<typeof value>(bytes);
  assert.equal({ ...back }, value);
});

test('a value that does not match the schema is VALUE_INVALID', async () => {
  try {
    await registry.encode(id1, { imei: 42 });
    assert.unreachable('encode accepted a bad value');
  } catch (err) {
    if (!(err instanceof RegistryError)) throw err;
    assert.is(err.code, 'VALUE_INVALID');
    assert.is(err.retriable, false);
  }
});

test('the registry refuses an incompatible change with 409, mapped to SCHEMA_INCOMPATIBLE', async () => {
  try {
    await registry.register(subject, incompatible);
    assert.unreachable('the registry accepted a new required field without default');
  } catch (err) {
    if (!(err instanceof RegistryError)) throw err;
    assert.is(err.code, 'SCHEMA_INCOMPATIBLE');
    assert.is(err.status, 409);
    assert.is(err.retriable, false);
  }
});

test('a compatible change (new field with a default) gets a new id; old bytes still decode', async () => {
  const id2 = await registry.register(subject, compatible);
  assert.ok(id2 !== id1, 'a changed schema got the old id');
  const bytes = await registry.encode(id2, { imei: '1', current: 1, phase: 'B' });
  assert.is(bytes.readUInt32BE(1), id2);
  assert.equal({ ...(await registry.decode<object>(bytes)) }, { imei: '1', current: 1, phase: 'B' });
  const old = await registry.encode(id1, { imei: '2', current: 2 });
  assert.equal({ ...(await registry.decode<object>(old)) }, { imei: '2', current: 2 });
});

test('bytes that are not in the wire format are WIRE_FORMAT_INVALID; an unknown id is NOT_FOUND', async () => {
  const codeOf = async (buf: Buffer) => registry.decode(buf).then(() => 'decoded', (err: unknown) => (err instanceof RegistryError ? err.code : String(err)));
  assert.is(await codeOf(Buffer.from('{"imei":"1"}')), 'WIRE_FORMAT_INVALID');
  assert.is(await codeOf(Buffer.from([0, 0x7f, 0xff, 0xff, 0xf0, 2])), 'NOT_FOUND');
});

test('decoded into a reader schema: a field the writer lacks takes its default; a reader that cannot read the writer is SCHEMA_UNREADABLE, not retriable', async () => {
  const bytes = await registry.encode(id1, { imei: '3', current: 3 });
  const reader = avro.Type.forSchema({ ...v1, fields: [...v1.fields, { name: 'phase', type: 'string', default: 'A' }] } as avro.Schema);
  assert.equal({ ...(await registry.decode<object>(bytes, reader)) }, { imei: '3', current: 3, phase: 'A' });
  const unreadable = avro.Type.forSchema(incompatible as avro.Schema);
  const err = await registry.decode(bytes, unreadable).then(() => null, (e: unknown) => e);
  assert.instance(err, RegistryError);
  assert.is((err as RegistryError).code, 'SCHEMA_UNREADABLE');
  assert.is((err as RegistryError).retriable, false);
});

test('an unreachable registry is REGISTRY_UNAVAILABLE and retriable', async () => {
  const down = createRegistry('http://127.0.0.1:9/apis/ccompat/v7', { timeoutMs: 1000 });
  try {
    await down.register(subject, v1);
    assert.unreachable('register against a closed port succeeded');
  } catch (err) {
    if (!(err instanceof RegistryError)) throw err;
    assert.is(err.code, 'REGISTRY_UNAVAILABLE');
    assert.is(err.retriable, true);
  }
  // Decoding into a reader schema asks the registry for the writer's: unavailable, so retried by the stage.
  const bytes = Buffer.concat([Buffer.from([0, 0, 0, 0, 7]), avro.Type.forSchema(v1 as avro.Schema).toBuffer({ imei: '1', current: 1 })]);
  const err = await down.decode(bytes, avro.Type.forSchema(v1 as avro.Schema)).then(() => null, (e: unknown) => e);
  assert.is((err as RegistryError | null)?.code, 'REGISTRY_UNAVAILABLE');
});

test.run();
