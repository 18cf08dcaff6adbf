// The value schema of every topic, by versioned topic name. A breaking change is a new topic (`.v2`), never
// an edit here; additions are optional fields with defaults (the registry enforces BACKWARD_TRANSITIVE, and
// schemas/released.ts checks every released version).
import { checkIn, deviceSnapshot, optional, origin, required, type AvroSchema } from './records.js';

export const TOPICS = {
  raw: 'fi.raw.v1',
  enriched: 'fi.enriched.v1',
  deduped: 'fi.deduped.v1',
  computed: 'fi.computed.v1',
  persisted: 'fi.persisted.v1',
  dlq: 'fi.dlq.v1',
} as const;
export type TopicName = (typeof TOPICS)[keyof typeof TOPICS];

const NS = 'faultline';
const record = (name: string, doc: string, fields: unknown[]): AvroSchema => ({ type: 'record', name, namespace: NS, doc, fields });

const raw = record('RawMessage', 'a queue message as received, keyed by IMEI', [
  ...origin,
  required('imei', 'string'),
  required('body', 'string', 'the raw JSON text, so a replay re-runs every rule from the original'),
]);

// The stage envelopes grow by one group of fields per stage. Each later schema repeats the earlier groups
// (Avro has no inheritance); named types are defined once per schema, at their first use.
const enrichedFields = [
  ...origin,
  required('checkIn', checkIn),
  optional('reportedModel', 'string', 'the model string before replacement (spec 3.3)'),
  optional('device', deviceSnapshot, 'null: IMEI not registered (stored, invisible until registered)'),
  optional('CurrentName', 'string'),
  optional('CurrentLat', 'double'),
  optional('CurrentLong', 'double'),
];

const dedupedFields = [
  ...enrichedFields,
  required('droppedEvents', 'int', 'events already stored (spec 6.1 step 6)'),
];

const eventShift = record('EventShift', 'a stored Fault <50 event whose timestamp moves back 30 s (spec 3.4)', [
  required('EventID', 'long'),
  required('fromTimestamp', 'string'),
  required('toTimestamp', 'string'),
]);

const modelChange = record('ModelChangeAlert', 'the model-change alert of spec 6.1 step 5', [
  required('oldModel', 'string'),
  required('newModel', 'string'),
]);

const computedFields = [
  ...dedupedFields,
  required('ActualOngoingFault', 'int'),
  required('ReportedOngoingFault', 'int'),
  required('shifts', { type: 'array', items: eventShift }),
  optional('alert', modelChange),
  optional('previousActualOngoingFault', 'int', 'of the previous stored check-in; null: first check-in'),
];

const persistedFields = [
  ...computedFields,
  required('DeviceRecordID', 'long'),
  required('ownsRecord', 'boolean', 'the stored record came from this message (false: an earlier message stored that IMEI and date)'),
  required('storedEventIds', { type: 'array', items: 'long' }, 'EventIDs newly stored by this message'),
];

const dlq = record('DeadLetter', 'a message no stage could process, with the reason', [
  required('messageId', 'string'),
  required('source', 'string'),
  optional('imei', 'string'),
  required('stage', 'string'),
  required('code', 'string', 'machine code shared with the API errors, e.g. MALFORMED, INVALID, UNKNOWN_DEVICE'),
  required('reason', 'string', 'a human sentence naming the problem'),
  required('body', 'string', 'the raw message body, unchanged'),
  required('rejectedAt', { type: 'long', logicalType: 'timestamp-millis' }),
  optional('topic', 'string', 'PROCESSING_FAILED: the topic the record was read from (body then holds its value as JSON unless it is fi.raw.v1); null: the queue'),
  optional('detail', 'string', 'PROCESSING_FAILED: the error and its stack, for the operator (never shown by the API)'),
]);

export const TOPIC_SCHEMAS: Record<TopicName, AvroSchema> = {
  [TOPICS.raw]: raw,
  [TOPICS.enriched]: record('EnrichedCheckIn', 'after enrich: validated, model replaced, device snapshot attached', enrichedFields),
  [TOPICS.deduped]: record('DedupedCheckIn', 'after dedup: stored events removed, duplicate check-ins dropped', dedupedFields),
  [TOPICS.computed]: record('ComputedCheckIn', 'after fault-compute: ActualOngoingFault, Fault <50 shifts, alert', computedFields),
  [TOPICS.persisted]: record('PersistedCheckIn', 'after persist: stored, with its RecordID', persistedFields),
  [TOPICS.dlq]: dlq,
};
