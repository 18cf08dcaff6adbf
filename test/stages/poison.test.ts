// Poison records through the runner on the in-memory transport (stages/runtime/runner.ts): a record the stage
// keeps failing on is narrowed down, retried MAX_RECORD_ATTEMPTS times and dead-lettered as PROCESSING_FAILED
// while every other record goes through once and in order per device; a record that fails twice then passes
// is sent once; an outage, however many attempts it lasts, dead-letters nothing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { registry } from '../../config/metrics.js';
import { TOPICS } from '../../schemas/avro/topics.js';
import type { DeadLetter } from '../../schemas/avro/values.js';
import { chainStages } from '../../stages/runtime/chain.js';
import { localAvroCodec } from '../../stages/runtime/codec.js';
import { runStage } from '../../stages/runtime/runner.js';
import { memoryTransport } from '../../stages/runtime/transport/memory.js';
import type { Stage } from '../../stages/runtime/stage.js';
import type { Transport } from '../../stages/runtime/transport/transport.js';
import { waitFor } from '../../support/wait-for.js';

interface Rec { device: string; n: number }

/** A stage that forwards each record to `out`, after `fault` had its say on each record it is given. */
function forwarder(name: string, input: string, output: string, fault: (r: Rec) => void, calls: number[] = []): Stage<never> {
  return {
    name, input, outputs: [output],
    async handle(batch) {
      calls.push(batch.messages.length);
      for (const m of batch.messages) fault(m.value as Rec);
      return { produce: batch.messages.map((m) => ({ topic: output, key: m.key, value: m.value })), deadLetters: [] };
    },
  };
}

/** 4 devices × 25 records, interleaved, on one partition (so they share batches). */
const records = (): Rec[] => Array.from({ length: 100 }, (_, i) => ({ device: `d${i % 4}`, n: Math.floor(i / 4) }));

async function collect(transport: Transport, topic: string, group: string) {
  const seen: { key: string; value: unknown }[] = [];
  const sub = await transport.subscribe<unknown>({ groupId: group, topic, eachBatch: async (b) => { for (const m of b.messages) seen.push({ key: m.key, value: m.value }); } });
  return { seen, stop: () => sub.stop() };
}

async function setup(stage: Stage<never>, opts: { maxRecordAttempts?: number; dependenciesUp?: () => Promise<boolean> } = {}) {
  const transport = memoryTransport({ codec: localAvroCodec(), partitions: 1, retryDelayMs: 10 });
  await transport.ensureTopics(['in', 'out', TOPICS.dlq]);
  const out = await collect(transport, 'out', 'test-out');
  const dlq = await collect(transport, TOPICS.dlq, 'test-dlq');
  const sub = await runStage(stage, { transport, groupPrefix: `poison-${Math.random()}`, maxBatchSize: 50, ...opts });
  await transport.producer().send(records().map((r) => ({ topic: 'in', key: r.device, value: r })));
  return {
    out: out.seen, dlq: dlq.seen as { key: string; value: DeadLetter }[],
    async close() { await sub.stop(); await out.stop(); await dlq.stop(); await transport.close(); },
  };
}

/** Per device, the record numbers in the order they arrived on `out`. */
function perDevice(out: { value: unknown }[]): Record<string, number[]> {
  const by: Record<string, number[]> = {};
  for (const { value } of out) (by[(value as Rec).device] ??= []).push((value as Rec).n);
  return by;
}

const upTo = (n: number, skip?: number) => Array.from({ length: n }, (_, i) => i).filter((i) => i !== skip);

async function rejected(stage: string, code: string): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'faultline_stage_rejected_total');
  return metric?.values.find((v) => v.labels.stage === stage && v.labels.code === code)?.value ?? 0;
}

test('a record that always throws: dead-lettered PROCESSING_FAILED after the bounded attempts; every other record once, in order', async () => {
  let poisonCalls = 0;
  const stage = forwarder('poisoned', 'in', 'out', (r) => {
    if (r.device === 'd2' && r.n === 7) { poisonCalls++; throw new TypeError(`no rule for record ${r.n}`); }
  });
  const run = await setup(stage, { maxRecordAttempts: 3 });
  try {
    await waitFor('99 records out and one dead letter', () => run.out.length >= 99 && run.dlq.length >= 1, { timeoutMs: 30_000 });
    await new Promise((r) => setTimeout(r, 300)); // anything sent twice would show now
    assert.is(run.out.length, 99);
    assert.equal(perDevice(run.out), { d0: upTo(25), d1: upTo(25), d2: upTo(25, 7), d3: upTo(25) }, 'every other record once, each device in order');
    assert.is(run.dlq.length, 1);
    const letter = run.dlq[0]!.value;
    assert.is(letter.code, 'PROCESSING_FAILED');
    assert.is(letter.stage, 'poisoned');
    assert.is(letter.imei, 'd2');
    assert.is(letter.topic, 'in');
    assert.equal(JSON.parse(letter.body), { device: 'd2', n: 7 }, 'the record itself, to resubmit it');
    assert.match(letter.reason, 'poisoned failed on this record 3 times: no rule for record 7');
    assert.match(letter.detail ?? '', /TypeError: no rule for record 7\n\s+at /, 'the error with its stack');
    // The whole batch, then halves down to the record (50 -> 25 -> 13 -> 7 -> 4 -> 2 -> 1), then the retries.
    assert.ok(poisonCalls >= 3, `the record was tried ${poisonCalls} times`);
    assert.is(await rejected('poisoned', 'PROCESSING_FAILED'), 1, 'counted once on /metrics');
  } finally {
    await run.close();
  }
});

test('a record that throws twice then passes: sent once, nothing dead-lettered', async () => {
  let failures = 0;
  const stage = forwarder('flaky', 'in', 'out', (r) => {
    if (r.device === 'd1' && r.n === 20 && failures < 2) { failures++; throw new Error('not yet'); }
  });
  const run = await setup(stage, { maxRecordAttempts: 5 });
  try {
    await waitFor('100 records out', () => run.out.length >= 100, { timeoutMs: 30_000 });
    await new Promise((r) => setTimeout(r, 300));
    assert.is(failures, 2);
    assert.equal(perDevice(run.out), { d0: upTo(25), d1: upTo(25), d2: upTo(25), d3: upTo(25) });
    assert.is(run.dlq.length, 0);
  } finally {
    await run.close();
  }
});

test('an outage far longer than MAX_RECORD_ATTEMPTS dead-letters nothing; everything goes through once it ends', async () => {
  let down = true;
  let outageFailures = 0;
  const stage = forwarder('outage', 'in', 'out', () => {
    if (down) { outageFailures++; throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }); }
  });
  const run = await setup(stage, { maxRecordAttempts: 2 });
  try {
    await waitFor('ten failed attempts', () => outageFailures >= 10, { timeoutMs: 60_000 });
    down = false;
    await waitFor('100 records out', () => run.out.length >= 100, { timeoutMs: 60_000 });
    await new Promise((r) => setTimeout(r, 300));
    assert.is(run.out.length, 100);
    assert.is(run.dlq.length, 0);
  } finally {
    await run.close();
  }
});

test('an error nobody foresaw while the dependencies are down waits instead of costing the record', async () => {
  let up = false;
  let calls = 0;
  const stage = forwarder('unforeseen', 'in', 'out', (r) => {
    if (!up && r.device === 'd3' && r.n === 0) { calls++; throw new Error('socket hang up (shape nobody classified)'); }
  });
  const run = await setup(stage, { maxRecordAttempts: 2, dependenciesUp: async () => up });
  try {
    await waitFor('the record to be tried past its bound', () => calls >= 8, { timeoutMs: 60_000 });
    assert.is(run.dlq.length, 0, 'nothing dead-lettered while the dependencies are down');
    up = true;
    await waitFor('100 records out', () => run.out.length >= 100, { timeoutMs: 60_000 });
    assert.is(run.dlq.length, 0);
  } finally {
    await run.close();
  }
});

test('in a chained segment the dead letter names the inner stage that threw, and is counted once under it', async () => {
  const chain = chainStages('first..second', [
    forwarder('first', 'in', 'mid', () => {}),
    forwarder('second', 'mid', 'out', (r) => { if (r.device === 'd0' && r.n === 3) throw new Error('second cannot'); }),
  ]);
  const before = await rejected('first..second', 'PROCESSING_FAILED');
  const run = await setup(chain, { maxRecordAttempts: 2 });
  try {
    await waitFor('99 records out and one dead letter', () => run.out.length >= 99 && run.dlq.length >= 1, { timeoutMs: 30_000 });
    assert.is(run.dlq[0]!.value.stage, 'second');
    assert.is(run.dlq[0]!.value.topic, 'in', 'the segment\'s input: where a resubmitted record must go');
    assert.equal(perDevice(run.out), { d0: upTo(25, 3), d1: upTo(25), d2: upTo(25), d3: upTo(25) });
    assert.is(await rejected('second', 'PROCESSING_FAILED'), 1);
    assert.is(await rejected('first..second', 'PROCESSING_FAILED'), before, 'not under the segment label as well');
  } finally {
    await run.close();
  }
});

test('the dead-letter reader never dead-letters into the topic it reads: it keeps the letter and tries again', async () => {
  const transport = memoryTransport({ codec: localAvroCodec(), partitions: 1, retryDelayMs: 10 });
  let failures = 0;
  const stored: string[] = [];
  const reader: Stage<never> = {
    name: 'dlq-reader', input: TOPICS.dlq, outputs: [],
    async handle(batch) {
      for (const m of batch.messages) {
        const l = m.value as DeadLetter;
        if (l.messageId === 'bad' && failures < 6) { failures++; throw new Error('cannot store'); }
      }
      stored.push(...batch.messages.map((m) => (m.value as DeadLetter).messageId));
      return { produce: [], deadLetters: [] };
    },
  };
  const sub = await runStage(reader, { transport, groupPrefix: 'dlq-reader', maxRecordAttempts: 2 });
  const letter = (messageId: string): DeadLetter => ({ messageId, source: 'test', imei: null, stage: 'x', code: 'INVALID', reason: 'r', body: '', rejectedAt: 0 });
  await transport.producer().send(['a', 'bad', 'b'].map((id) => ({ topic: TOPICS.dlq, key: id, value: letter(id) })));
  try {
    await waitFor('every letter stored', () => ['a', 'bad', 'b'].every((id) => stored.includes(id)), { timeoutMs: 60_000 });
    assert.is(failures, 6, 'tried past MAX_RECORD_ATTEMPTS');
    const lag = await sub.lag();
    assert.is(lag.reduce((n, p) => n + Number(p.end), 0), 3, 'nothing of its own was appended to the dead-letter topic');
  } finally {
    await sub.stop();
    await transport.close();
  }
});

test.run();
