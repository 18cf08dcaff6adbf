// The transport contract (stages/runtime/transport/transport.ts), one suite run by every implementation:
// test/contract/memory-transport.test.ts and test/integration/kafka-transport.test.ts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TOPICS } from '../../schemas/avro/topics.js';
import type { RawMessage } from '../../schemas/avro/values.js';
import type { InMessage, Transport } from '../../stages/runtime/transport/transport.js';
import { randomName, waitFor } from '../../support/wait-for.js';

export interface ContractContext {
  /** A fresh transport; `topic` is a fresh name for tests that need their own topic. */
  make(): Promise<Transport>;
  /** A topic name that uses the fi.raw.v1 schema but is unique to the test (Kafka: per-run topics). */
  rawTopic(): string;
}

const raw = (imei: string, n: number): RawMessage => ({ messageId: `${imei}-${n}`, source: 'test', receivedAt: 1_700_000_000_000 + n, imei, body: `{"n":${n}}` });

export function transportContract(name: string, ctx: ContractContext): void {
  const test = suite(`transport contract: ${name}`);

  test('records of one key arrive in the order they were sent, whatever the partition', async () => {
    const t = await ctx.make();
    try {
      const topic = ctx.rawTopic();
      await t.ensureTopics([topic]);
      const keys = Array.from({ length: 8 }, (_, i) => `86100000000${String(i).padStart(4, '0')}`);
      const sent = keys.flatMap((k) => Array.from({ length: 25 }, (_, n) => ({ topic, key: k, value: raw(k, n) })));
      // interleave keys, several sends
      for (let i = 0; i < sent.length; i += 40) await t.producer().send(sent.slice(i, i + 40));
      const seen = new Map<string, number[]>();
      const sub = await t.subscribe<RawMessage>({
        groupId: randomName('g'), topic,
        async eachBatch(batch) { for (const m of batch.messages) seen.set(m.key, [...(seen.get(m.key) ?? []), Number(JSON.parse(m.value.body).n)]); },
      });
      await waitFor('all 200 records', () => [...seen.values()].reduce((a, l) => a + l.length, 0) >= 200);
      await sub.stop();
      for (const k of keys) assert.equal(seen.get(k), Array.from({ length: 25 }, (_, n) => n), `order of ${k}`);
    } finally {
      await t.close();
    }
  });

  test('a batch whose handler throws is delivered again, and nothing after it is lost', async () => {
    const t = await ctx.make();
    try {
      const topic = ctx.rawTopic();
      await t.ensureTopics([topic]);
      await t.producer().send(Array.from({ length: 30 }, (_, n) => ({ topic, key: '861000000000001', value: raw('861000000000001', n) })));
      const delivered: number[] = [];
      let failures = 0;
      const sub = await t.subscribe<RawMessage>({
        groupId: randomName('g'), topic,
        async eachBatch(batch) {
          if (failures < 2) { failures++; throw new Error('database away'); }
          for (const m of batch.messages) delivered.push(Number(JSON.parse(m.value.body).n));
        },
      });
      await waitFor('30 records after two failures', () => new Set(delivered).size >= 30, { timeoutMs: 60_000 });
      await sub.stop();
      assert.is(failures, 2);
      assert.equal([...new Set(delivered)].sort((a, b) => a - b), Array.from({ length: 30 }, (_, n) => n));
    } finally {
      await t.close();
    }
  });

  test('a group resumes after its committed offset: committed records are not read twice', async () => {
    const t = await ctx.make();
    try {
      const topic = ctx.rawTopic();
      const groupId = randomName('g');
      await t.ensureTopics([topic]);
      await t.producer().send(Array.from({ length: 10 }, (_, n) => ({ topic, key: '861000000000002', value: raw('861000000000002', n) })));
      const first: InMessage<RawMessage>[] = [];
      const a = await t.subscribe<RawMessage>({ groupId, topic, async eachBatch(b) { first.push(...b.messages); } });
      await waitFor('first 10', () => first.length >= 10);
      // Give the commit that follows the handler a moment, then leave the group.
      await new Promise((r) => setTimeout(r, 300));
      await a.stop();
      await t.producer().send(Array.from({ length: 5 }, (_, n) => ({ topic, key: '861000000000002', value: raw('861000000000002', 10 + n) })));
      const second: InMessage<RawMessage>[] = [];
      const b = await t.subscribe<RawMessage>({ groupId, topic, async eachBatch(batch) { second.push(...batch.messages); } });
      await waitFor('next 5', () => second.length >= 5);
      await new Promise((r) => setTimeout(r, 300));
      await b.stop();
      assert.equal(second.map((m) => Number(JSON.parse(m.value.body).n)), [10, 11, 12, 13, 14]);
    } finally {
      await t.close();
    }
  });

  test('onAssign runs before the first batch; onRevoke after the last', async () => {
    const t = await ctx.make();
    try {
      const topic = ctx.rawTopic();
      await t.ensureTopics([topic]);
      await t.producer().send([{ topic, key: '861000000000003', value: raw('861000000000003', 0) }]);
      const calls: string[] = [];
      const sub = await t.subscribe<RawMessage>({
        groupId: randomName('g'), topic,
        async onAssign(p) { calls.push(`assign:${p.length > 0}`); },
        async onRevoke() { calls.push('revoke'); },
        async eachBatch() { calls.push('batch'); },
      });
      await waitFor('a batch', () => calls.includes('batch'));
      await sub.stop();
      assert.is(calls[0], 'assign:true');
      assert.is(calls.at(-1), 'revoke');
    } finally {
      await t.close();
    }
  });

  test('a value that does not fit its topic schema is refused at send', async () => {
    const t = await ctx.make();
    try {
      await t.ensureTopics([TOPICS.raw]);
      let error: unknown = null;
      try {
        await t.producer().send([{ topic: TOPICS.raw, key: 'x', value: { messageId: 1, body: null } }]);
      } catch (err) {
        error = err;
      }
      assert.ok(error instanceof Error, 'send must reject');
    } finally {
      await t.close();
    }
  });

  test('a group started from a timestamp reads exactly the records from that time on, once', async () => {
    const t = await ctx.make();
    try {
      const topic = ctx.rawTopic();
      await t.ensureTopics([topic]);
      await t.producer().send(Array.from({ length: 5 }, (_, n) => ({ topic, key: '861000000000005', value: raw('861000000000005', n) })));
      await new Promise((r) => setTimeout(r, 50));
      const from = Date.now();
      await new Promise((r) => setTimeout(r, 50));
      await t.producer().send(Array.from({ length: 4 }, (_, n) => ({ topic, key: '861000000000005', value: raw('861000000000005', 5 + n) })));
      const seen: number[] = [];
      const sub = await t.subscribe<RawMessage>({ groupId: randomName('replay'), topic, fromTimestamp: from, async eachBatch(b) { for (const m of b.messages) seen.push(Number(JSON.parse(m.value.body).n)); } });
      await waitFor('4 records', () => seen.length >= 4);
      await new Promise((r) => setTimeout(r, 500));
      await sub.stop();
      assert.equal(seen, [5, 6, 7, 8]);
    } finally {
      await t.close();
    }
  });

  test('lag reports what a group has not read yet', async () => {
    const t = await ctx.make();
    try {
      const topic = ctx.rawTopic();
      await t.ensureTopics([topic]);
      let gate = false;
      let count = 0;
      const sub = await t.subscribe<RawMessage>({ groupId: randomName('g'), topic, async eachBatch(b) { if (!gate) throw new Error('hold'); count += b.messages.length; } });
      await t.producer().send(Array.from({ length: 12 }, (_, n) => ({ topic, key: `86100000000${n % 3}000`, value: raw('861000000000004', n) })));
      await waitFor('lag of 12', async () => (await sub.lag()).reduce((s, p) => s + Number(p.end) - Number(p.next), 0) === 12, { timeoutMs: 20_000 });
      gate = true;
      await waitFor('lag back to 0', async () => count >= 12 && (await sub.lag()).every((p) => p.end === p.next), { timeoutMs: 60_000 });
      await sub.stop();
    } finally {
      await t.close();
    }
  });

  test.run();
}
