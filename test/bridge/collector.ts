// Test helpers for the bridge suites: read back what a source published, and transports whose producer fails.
import { TOPICS } from '../../schemas/avro/topics.js';
import type { DeadLetter, RawMessage } from '../../schemas/avro/values.js';
import type { InMessage, OutMessage, Transport } from '../../stages/runtime/transport/transport.js';

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

export interface FlakyTransport extends Transport {
  /** send() calls so far, failed ones included. */
  readonly calls: number;
  /** Batches passed to send(), in call order. */
  readonly batches: OutMessage[][];
}

/** The same transport, except that its producer rejects the first `failFirst` sends (Infinity: all). */
export function flakyTransport(inner: Transport, failFirst: number): FlakyTransport {
  const real = inner.producer();
  const batches: OutMessage[][] = [];
  let calls = 0;
  const producer = {
    async send(messages: OutMessage[]) {
      calls++;
      batches.push(messages);
      if (calls <= failFirst) throw new Error(`broker unavailable (test failure ${calls} of ${failFirst})`);
      await real.send(messages);
    },
  };
  return {
    kind: inner.kind,
    ensureTopics: (t) => inner.ensureTopics(t),
    producer: () => producer,
    subscribe: (o) => inner.subscribe(o),
    ready: () => inner.ready(),
    close: () => inner.close(),
    get calls() { return calls; },
    batches,
  };
}
