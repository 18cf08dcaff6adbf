// How topic values become bytes. Pipeline topics (fi.*) are Avro: through the schema registry in the
// Confluent wire format on Kafka, or with the same schemas locally on the in-process transport, so both
// transports check every record against its schema. Other topics (a device's DNP3 queue address) carry
// JSON, because their readers are customer systems.
import avro from 'avsc';
import type { AvroSchema } from '../../schemas/avro/records.js';
import { TOPIC_SCHEMAS, type TopicName } from '../../schemas/avro/topics.js';

export interface Codec {
  encode(topic: string, value: unknown): Promise<Buffer>;
  decode<V>(topic: string, bytes: Buffer): Promise<V>;
}

const isPipelineTopic = (topic: string): topic is TopicName => Object.hasOwn(TOPIC_SCHEMAS, topic);

const json = {
  encode: (value: unknown) => Buffer.from(JSON.stringify(value)),
  decode: <V>(bytes: Buffer) => JSON.parse(bytes.toString('utf8')) as V,
};

/** Avro without a registry: plain binary encoding (no wire-format header) of the same schemas. */
export function localAvroCodec(): Codec {
  const types = new Map<string, avro.Type>();
  for (const [topic, schema] of Object.entries(TOPIC_SCHEMAS)) types.set(topic, avro.Type.forSchema(schema as avro.Schema));
  const typeOf = (topic: string) => types.get(topic);
  return {
    async encode(topic, value) {
      const type = typeOf(topic);
      return type ? type.toBuffer(value) : json.encode(value);
    },
    async decode<V>(topic: string, bytes: Buffer) {
      const type = typeOf(topic);
      return type ? (type.fromBuffer(bytes) as V) : json.decode<V>(bytes);
    },
  };
}

/** What the registry client (schemas/registry.ts) offers the codec. */
export interface WireFormatRegistry {
  register(subject: string, schema: object): Promise<number>;
  encode(id: number, value: unknown): Promise<Buffer>;
  decode<T>(bytes: Buffer, reader?: avro.Type): Promise<T>;
}

/**
 * Confluent wire format (magic byte, schema id, Avro body). Every pipeline schema is registered once, at
 * construction, so the hot path only encodes. Subjects follow the deployed topic name (TopicNameStrategy,
 * `<deployed topic>-value`), so deployments with different namespaces keep their own subjects on one registry.
 *
 * Records are decoded into this release's schema whatever schema wrote them (docs/decisions.md#schema-evolution):
 * a field added since takes its default, a field removed since is dropped, so a replay of records written by
 * any earlier release reaches the stages in the shape they are written for. `schemas` is what this release
 * writes and reads (a test passes the next release's).
 */
/** What the codec needs of the deployed Kafka names (transport/names.ts KafkaNames has it): a topic's deployed name. */
export interface SubjectNames { topic(logical: string): string }
/** No KAFKA_NAMESPACE: the registry subjects named by the topics as they are. */
const AS_THEY_ARE: SubjectNames = { topic: (logical) => logical };

export async function registryCodec(
  registry: WireFormatRegistry, names: SubjectNames = AS_THEY_ARE, schemas: Readonly<Record<TopicName, AvroSchema>> = TOPIC_SCHEMAS,
): Promise<Codec> {
  const ids = new Map<string, number>();
  const readers = new Map<string, avro.Type>();
  for (const [topic, schema] of Object.entries(schemas)) {
    ids.set(topic, await registry.register(`${names.topic(topic)}-value`, schema));
    readers.set(topic, avro.Type.forSchema(schema as avro.Schema));
  }
  return {
    async encode(topic, value) {
      const id = ids.get(topic);
      return id === undefined ? json.encode(value) : registry.encode(id, value);
    },
    async decode<V>(topic: string, bytes: Buffer) {
      return isPipelineTopic(topic) ? registry.decode<V>(bytes, readers.get(topic)) : json.decode<V>(bytes);
    },
  };
}
