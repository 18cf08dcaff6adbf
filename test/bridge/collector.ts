// Reads back what a source published: every record of fi.raw.v1 and fi.dlq.v1.
import { TOPICS } from '../../schemas/avro/topics.js';
import type { DeadLetter, RawMessage } from '../../schemas/avro/values.js';
import type { InMessage, Transport } from '../../stages/runtime/transport/transport.js';

export interface Collected {
  raw: InMessage<RawMessage>[];
  dlq: InMessage<DeadLetter>[];
  stop(): Promise<void>;
}

/** Subscribes to fi.raw.v1 and fi.dlq.v1 from the beginning and keeps every record. */
export async function collect(transport: Transport, groupId = 'bridge-test-reader'): Promise<Collected> {
  const raw: InMessage<RawMessage>[] = [];
  const dlq: InMessage<DeadLetter>[] = [];
  const subs = [
    await transport.subscribe<RawMessage>({ groupId, topic: TOPICS.raw, eachBatch: async ({ messages }) => { raw.push(...messages); } }),
    await transport.subscribe<DeadLetter>({ groupId, topic: TOPICS.dlq, eachBatch: async ({ messages }) => { dlq.push(...messages); } }),
  ];
  return { raw, dlq, stop: async () => { await Promise.all(subs.map((s) => s.stop())); } };
}
