// Regression: a record whose schema the registry must be asked for while the registry is away failed to
// decode and was dead-lettered as UNDECODABLE, i.e. a good message was lost to a 30 s outage. Now a decode
// error marked retriable (RegistryError REGISTRY_UNAVAILABLE / REGISTRY_ERROR) is tried again, and only bytes
// that can never decode are poison. Real broker, private topic, a codec that fails like an absent registry.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RegistryError } from '../../schemas/registry.js';
import type { Codec } from '../../stages/runtime/codec.js';
import { kafkaTransport } from '../../stages/runtime/transport/kafka.js';
import type { InMessage } from '../../stages/runtime/transport/transport.js';
import { brokers } from '../../support/kafka.js';
import { randomName, waitFor } from './rig.js';

test('a decode that fails while the registry is away is retried, not dead-lettered; real poison still is', async () => {
  let outage = 4; // the first four decodes of the good record meet "registry unavailable"
  const codec: Codec = {
    encode: async (_topic, value) => Buffer.from(JSON.stringify(value)),
    async decode<V>(_topic: string, bytes: Buffer): Promise<V> {
      const text = bytes.toString('utf8');
      if (text === 'garbage') throw new RegistryError('WIRE_FORMAT_INVALID', 'not the wire format');
      if (outage > 0) { outage--; throw new RegistryError('REGISTRY_UNAVAILABLE', 'connect ECONNREFUSED (simulated)'); }
      return JSON.parse(text) as V;
    },
  };
  const transport = kafkaTransport({ brokers: brokers(), codec, partitions: 1, sessionTimeoutMs: 10_000 });
  const topic = randomName('resilience-decode');
  const got: unknown[] = [];
  const poisoned: string[] = [];
  try {
    await transport.ensureTopics([topic]);
    const raw = transport.producer();
    await raw.send([{ topic, key: 'k', value: { n: 1 } }]);
    // A record that is not even JSON: the codec above calls it invalid wire format.
    const kafka = (await import('kafkajs')).Kafka;
    const p = new kafka({ brokers: brokers(), logLevel: 0 }).producer();
    await p.connect();
    await p.send({ topic, messages: [{ key: 'k', value: 'garbage' }] });
    await p.disconnect();
    await raw.send([{ topic, key: 'k', value: { n: 2 } }]);

    const sub = await transport.subscribe<{ n: number }>({
      groupId: randomName('resilience-decode'), topic,
      async eachBatch(batch) { for (const m of batch.messages) got.push(m.value); },
      async onPoison(m: InMessage<Buffer>) { poisoned.push(m.value.toString('utf8')); },
    });
    await waitFor('both good records', () => got.length >= 2, { timeoutMs: 60_000, intervalMs: 100 });
    await sub.stop();
    assert.equal(got, [{ n: 1 }, { n: 2 }], 'the good records arrive, in order, after the outage');
    assert.equal(poisoned, ['garbage'], 'only the undecodable record is poison');
    assert.is(outage, 0, 'the outage was met');
  } finally {
    await transport.close();
  }
});

test.run();
