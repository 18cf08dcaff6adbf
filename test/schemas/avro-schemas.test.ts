import { test } from 'uvu';
import * as assert from 'uvu/assert';
import avro from 'avsc';
import { fixtureText as fixture } from '../../support/checkins.js';
import { TOPIC_SCHEMAS, TOPICS } from '../../schemas/avro/topics.js';
import { driftedSchemas } from '../../schemas/generate.js';
import { parseQueueMessage } from '../../domain/validate-message.js';
import type { EnrichedCheckIn, PersistedCheckIn } from '../../schemas/avro/values.js';

const plain = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;

test('the committed schemas/*.avsc match schemas/avro/topics.ts (npm run generate:schemas)', () => {
  assert.equal(driftedSchemas(), []);
});

test('every topic has a schema that avsc accepts', () => {
  for (const topic of Object.values(TOPICS)) assert.ok(avro.Type.forSchema(TOPIC_SCHEMAS[topic] as avro.Schema), topic);
});

test('a validated fixture check-in round-trips through fi.enriched.v1 and fi.persisted.v1 unchanged', () => {
  for (const file of ['002-permanent-fault.json', '006-dm1-fault-initial.json', '012-unknown-device.json']) {
    const parsed = parseQueueMessage(fixture(file));
    assert.ok(parsed.ok, file);
    if (!parsed.ok) continue;
    const enriched: EnrichedCheckIn = {
      // A real check-in has no test-fault mark; on the topics that is test_fault null (docs/decisions.md#test-faults).
      messageId: file, source: 'test', receivedAt: 1_763_647_200_000, checkIn: { ...parsed.value, test_fault: null }, reportedModel: parsed.value.device_data.model,
      device: null, CurrentName: null, CurrentLat: null, CurrentLong: null,
    };
    const type = avro.Type.forSchema(TOPIC_SCHEMAS[TOPICS.enriched] as avro.Schema);
    assert.equal(plain(type.fromBuffer(type.toBuffer(enriched))), plain(enriched), file);
    const persisted: PersistedCheckIn = {
      ...enriched, droppedEvents: 0, ActualOngoingFault: 4, ReportedOngoingFault: 4, shifts: [], alert: null, previousActualOngoingFault: null,
      DeviceRecordID: 1, ownsRecord: true, storedEventIds: parsed.value.events.map((e) => e.EventID),
    };
    const ptype = avro.Type.forSchema(TOPIC_SCHEMAS[TOPICS.persisted] as avro.Schema);
    assert.equal(plain(ptype.fromBuffer(ptype.toBuffer(persisted))), plain(persisted), file);
  }
});

test('a later schema reads records of the earlier stage schema it extends (fields only ever added)', () => {
  const enriched = avro.Type.forSchema(TOPIC_SCHEMAS[TOPICS.enriched] as avro.Schema);
  const deduped = avro.Type.forSchema(TOPIC_SCHEMAS[TOPICS.deduped] as avro.Schema);
  const enrichedFields = (enriched as unknown as { fields: { name: string }[] }).fields.map((f) => f.name);
  const dedupedFields = (deduped as unknown as { fields: { name: string }[] }).fields.map((f) => f.name);
  assert.equal(dedupedFields.slice(0, enrichedFields.length), enrichedFields);
});

test.run();
