// The in-process transport's durable send (issue 41, 3b; docs/pipeline.md#the-in-process-transport): what a
// source acknowledges its origin on. It resolves only once every group reading the records committed them and
// every record sent while handling them (a dead letter here) was committed too; it fails when a consumer that
// still has to read them stops. Before, it resolved as soon as the records were in memory, so a spool file was
// removed while its record could still die with the process.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TOPICS } from '../../schemas/avro/topics.js';
import type { DeadLetter, RawMessage } from '../../schemas/avro/values.js';
import { localAvroCodec } from '../../stages/runtime/codec.js';
import { memoryTransport } from '../../stages/runtime/transport/memory.js';
import type { Transport } from '../../stages/runtime/transport/transport.js';
import { waitFor } from '../../support/wait-for.js';

const IMEI = '861000000000041';
const raw = (n: number): RawMessage => ({ messageId: `m-${n}`, source: 'spool', receivedAt: 1_700_000_000_000 + n, imei: IMEI, body: `{"n":${n}}` });
const letter = (m: RawMessage): DeadLetter => ({ messageId: m.messageId, source: m.source, imei: m.imei, stage: 'enrich', code: 'INVALID', reason: 'test', body: m.body, rejectedAt: 1_700_000_000_000 });

const transport = (): Transport => memoryTransport({ codec: localAvroCodec(), partitions: 2, retryDelayMs: 10 });

/** Settled state of a promise, read without waiting for it. */
function watch(p: Promise<void>): { state: () => 'pending' | 'resolved' | 'rejected'; error: () => unknown } {
  let state: 'pending' | 'resolved' | 'rejected' = 'pending';
  let error: unknown = null;
  p.then(() => { state = 'resolved'; }, (err: unknown) => { state = 'rejected'; error = err; });
  return { state: () => state, error: () => error };
}

test('a durable send resolves only once its records and the dead letters they became are committed', async () => {
  const t = transport();
  try {
    // The chain's stand-in dead-letters every record; the dead-letter reader cannot store until the gate opens.
    let open = false;
    const refused: string[] = [];
    const stored: string[] = [];
    const chain = await t.subscribe<RawMessage>({
      groupId: 'chain', topic: TOPICS.raw,
      async eachBatch({ messages }) { await t.producer().send(messages.map((m) => ({ topic: TOPICS.dlq, key: m.key, value: letter(m.value) }))); },
    });
    const rejected = await t.subscribe<DeadLetter>({
      groupId: 'rejected', topic: TOPICS.dlq,
      async eachBatch({ messages }) {
        if (!open) { refused.push(...messages.map((m) => m.value.messageId)); throw new Error('database away'); }
        stored.push(...messages.map((m) => m.value.messageId));
      },
    });
    const sending = watch(t.producer({ durable: true }).send([0, 1, 2].map((n) => ({ topic: TOPICS.raw, key: IMEI, value: raw(n) }))));
    await waitFor('the dead letters refused by their reader', () => refused.length >= 3);
    assert.is(sending.state(), 'pending', 'not acknowledged while its dead letters are not stored');
    open = true;
    await waitFor('the durable send settled', () => sending.state() !== 'pending', { timeoutMs: 10_000 });
    assert.is(sending.state(), 'resolved');
    assert.equal(stored, ['m-0', 'm-1', 'm-2'], 'stored before the acknowledgement');
    await chain.stop();
    await rejected.stop();
  } finally {
    await t.close();
  }
});

test('a durable send fails when the consumer that has to read its records stops first', async () => {
  const t = transport();
  try {
    let seen = 0;
    const chain = await t.subscribe<RawMessage>({
      groupId: 'chain', topic: TOPICS.raw,
      async eachBatch({ messages }) { seen += messages.length; throw new Error('database away'); },
    });
    const sending = watch(t.producer({ durable: true }).send([{ topic: TOPICS.raw, key: IMEI, value: raw(0) }]));
    await waitFor('the record handled (and refused)', () => seen >= 1);
    await chain.stop();
    await waitFor('the durable send settled', () => sending.state() !== 'pending', { timeoutMs: 10_000 });
    assert.is(sending.state(), 'rejected', 'the source keeps its copy');
    assert.match(String(sending.error()), /stopped before it processed/);
    // And a durable send made after the stop fails at once instead of waiting for a reader that will not come.
    const later = watch(t.producer({ durable: true }).send([{ topic: TOPICS.raw, key: IMEI, value: raw(1) }]));
    await waitFor('the later send settled', () => later.state() !== 'pending', { timeoutMs: 10_000 });
    assert.is(later.state(), 'rejected');
  } finally {
    await t.close();
  }
});

test('durable sends waiting at once keep their records in send order', async () => {
  const t = transport();
  try {
    const order: number[] = [];
    const reader = await t.subscribe<RawMessage>({
      groupId: 'chain', topic: TOPICS.raw,
      async eachBatch({ messages }) { for (const m of messages) order.push(Number(JSON.parse(m.value.body).n)); },
    });
    const producer = t.producer({ durable: true });
    await Promise.all(Array.from({ length: 50 }, (_, n) => producer.send([{ topic: TOPICS.raw, key: IMEI, value: raw(n) }])));
    assert.equal(order, Array.from({ length: 50 }, (_, n) => n), 'every record read, in send order, before the sends resolved');
    await reader.stop();
  } finally {
    await t.close();
  }
});

test('a topic nobody reads keeps its newest records and never holds its writers', async () => {
  const t = memoryTransport({ codec: localAvroCodec(), partitions: 1, maxBacklog: 10 });
  try {
    const producer = t.producer();
    for (let n = 0; n < 25; n++) await producer.send([{ topic: TOPICS.raw, key: IMEI, value: raw(n) }]);
    const range = await t.topicRange(TOPICS.raw, 0);
    assert.equal(range, [{ partition: 0, start: '15', end: '25' }]);
  } finally {
    await t.close();
  }
});

// Finding 8b: a durable send waiting on a reader settled only when that reader's batch under way ended (or at
// close), so a source kept a spool file or an SQS message unacknowledged and un-returned for as long as the
// stage took to stop; and a reader blocked on a full topic whose own reader had stopped never stopped at all.
test('a durable send settles (fails) as soon as its reader begins to stop, even while the batch is held', async () => {
  const t = transport();
  try {
    let entered = 0;
    let release!: () => void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    const chain = await t.subscribe<RawMessage>({
      groupId: 'chain', topic: TOPICS.raw,
      async eachBatch({ messages }) { entered += messages.length; await held; },
    });
    const first = watch(t.producer({ durable: true }).send([{ topic: TOPICS.raw, key: IMEI, value: raw(0) }]));
    await waitFor('the batch held in its handler', () => entered >= 1);
    const stopping = watch(chain.stop());
    await waitFor('the durable send settled while the batch is still held', () => first.state() !== 'pending', { timeoutMs: 10_000 });
    assert.is(first.state(), 'rejected', 'the source keeps its copy');
    assert.is(stopping.state(), 'pending', 'the batch was still held when the send settled');
    const later = watch(t.producer({ durable: true }).send([{ topic: TOPICS.raw, key: IMEI, value: raw(1) }]));
    await waitFor('a send made while the reader stops settled', () => later.state() !== 'pending', { timeoutMs: 10_000 });
    assert.is(later.state(), 'rejected');
    release();
    await waitFor('the stop done', () => stopping.state() === 'resolved', { timeoutMs: 10_000 });
  } finally {
    await t.close();
  }
});

test('a reader blocked on a full topic whose own reader stopped still stops, and its durable sends settle', async () => {
  const t = memoryTransport({ codec: localAvroCodec(), partitions: 1, maxBacklog: 2, retryDelayMs: 10 });
  try {
    // The chain dead-letters every record; the dead-letter reader refuses all, so its topic fills up and the
    // chain's handler waits for room there.
    const chain = await t.subscribe<RawMessage>({
      groupId: 'chain', topic: TOPICS.raw,
      async eachBatch({ messages }) { for (const m of messages) await t.producer().send([{ topic: TOPICS.dlq, key: m.key, value: letter(m.value) }]); },
    });
    let refused = 0;
    const rejected = await t.subscribe<DeadLetter>({
      groupId: 'rejected', topic: TOPICS.dlq,
      async eachBatch() { refused++; throw new Error('database away'); },
    });
    const producer = t.producer({ durable: true });
    const sends = [0, 1, 2, 3].map((n) => watch(producer.send([{ topic: TOPICS.raw, key: IMEI, value: raw(n) }])));
    await waitFor('the dead-letter topic full', async () => refused > 0 && (await t.groupLag('rejected', TOPICS.dlq))[0]!.end === '2');
    await rejected.stop();
    const stopping = watch(chain.stop());
    await waitFor('every durable send settled', () => sends.every((s) => s.state() !== 'pending'), { timeoutMs: 10_000 });
    assert.equal(sends.map((s) => s.state()), ['rejected', 'rejected', 'rejected', 'rejected']);
    await waitFor('the blocked reader stopped', () => stopping.state() === 'resolved', { timeoutMs: 10_000 });
  } finally {
    await t.close();
  }
});

test.run();
