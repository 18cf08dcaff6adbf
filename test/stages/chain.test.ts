// A chained segment: each stage gets what the previous one produced for its input topic, everything else
// leaves the chain for the runner to send, and no stage's onSent runs unless the whole chain succeeded.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { registry } from '../../config/metrics.js';
import { chainStages } from '../../stages/runtime/chain.js';
import { localAvroCodec } from '../../stages/runtime/codec.js';
import { runStage } from '../../stages/runtime/runner.js';
import { memoryTransport } from '../../stages/runtime/transport/memory.js';
import type { Stage, StageResult } from '../../stages/runtime/stage.js';
import type { Batch, InMessage } from '../../stages/runtime/transport/transport.js';
import { outsideConsumer as controls } from '../../support/pipeline.js';

interface Seen { stage: string; values: unknown[]; topic: string; partition: number }

function stage(name: string, input: string, output: string, opts: { side?: string; fail?: boolean; dead?: (v: number) => boolean } = {}, log: Seen[] = [], sent: string[] = []): Stage<never> {
  return {
    name, input, outputs: [output, ...(opts.side ? [opts.side] : [])],
    async handle(batch: Batch<never>): Promise<StageResult> {
      const values = batch.messages.map((m) => m.value as number);
      log.push({ stage: name, values, topic: batch.topic, partition: batch.partition });
      if (opts.fail) throw new Error(`${name} failed`);
      const kept = values.filter((v) => !opts.dead?.(v));
      return {
        produce: [
          ...kept.map((v) => ({ topic: output, key: `k${v}`, value: v * 10 })),
          ...(opts.side ? kept.map((v) => ({ topic: opts.side!, key: `k${v}`, value: `side-${v}` })) : []),
        ],
        deadLetters: values.filter((v) => opts.dead?.(v)).map((v) => ({ messageId: `m${v}`, source: 'test', imei: null, stage: name, code: 'INVALID', reason: 'test', body: '', rejectedAt: 0 })),
        onSent: () => { sent.push(name); },
      };
    },
  };
}

const batch = (values: number[]): Batch<never> => ({
  topic: 'a', partition: 2,
  messages: values.map((v, i): InMessage<never> => ({ topic: 'a', partition: 2, offset: String(100 + i), key: `k${v}`, value: v as never, timestamp: 0 })),
});

test('records flow stage to stage in memory; only what leaves the chain is produced', async () => {
  const log: Seen[] = [];
  const chain = chainStages('s1..s3', [stage('s1', 'a', 'b', {}, log), stage('s2', 'b', 'c', { side: 'dnp3.x' }, log), stage('s3', 'c', 'd', {}, log)]);
  assert.is(chain.input, 'a');
  assert.is(chain.group, 's1');
  assert.equal([...chain.outputs].sort(), ['d', 'dnp3.x']);
  const result = await chain.handle(batch([1, 2]), controls);
  assert.equal(log, [
    { stage: 's1', values: [1, 2], topic: 'a', partition: 2 },
    { stage: 's2', values: [10, 20], topic: 'b', partition: 2 },
    { stage: 's3', values: [100, 200], topic: 'c', partition: 2 },
  ]);
  assert.equal(result.produce.map((m) => `${m.topic}:${String(m.value)}`), ['dnp3.x:side-10', 'dnp3.x:side-20', 'd:1000', 'd:2000']);
});

test('dead letters of every stage leave the chain, and a stage left with nothing stops it', async () => {
  const log: Seen[] = [];
  const chain = chainStages('s1..s3', [stage('s1', 'a', 'b', { dead: (v) => v === 1 }, log), stage('s2', 'b', 'c', { dead: () => true }, log), stage('s3', 'c', 'd', {}, log)]);
  const result = await chain.handle(batch([1, 2]), controls);
  assert.equal(result.deadLetters.map((l) => `${l.stage}:${l.messageId}`), ['s1:m1', 's2:m20']);
  assert.equal(log.map((s) => s.stage), ['s1', 's2'], 's3 had no input');
  assert.equal(result.produce, []);
});

test('onSent of every stage runs only when the runner calls the chain\'s, after the send', async () => {
  const sent: string[] = [];
  const chain = chainStages('s1..s2', [stage('s1', 'a', 'b', {}, [], sent), stage('s2', 'b', 'c', {}, [], sent)]);
  const result = await chain.handle(batch([1]), controls);
  assert.equal(sent, []);
  result.onSent?.();
  assert.equal(sent, ['s1', 's2']);
});

test('a stage that fails fails the whole batch, and no stage applies its changes', async () => {
  const sent: string[] = [];
  const chain = chainStages('s1..s2', [stage('s1', 'a', 'b', {}, [], sent), stage('s2', 'b', 'c', { fail: true }, [], sent)]);
  await chain.handle(batch([1]), controls).then(() => assert.unreachable('must throw'), (err: Error) => assert.is(err.message, 's2 failed'));
  assert.equal(sent, []);
});

async function rejectedCounts(): Promise<Record<string, number>> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'faultline_stage_rejected_total');
  return Object.fromEntries((metric?.values ?? []).map((v) => [`${String(v.labels.stage)}/${String(v.labels.code)}`, v.value]));
}

test('a chained segment run by the runner counts each dead letter once, under the stage that refused it', async () => {
  const transport = memoryTransport({ codec: localAvroCodec(), partitions: 1, retryDelayMs: 10 });
  const sent: string[] = [];
  const chain = chainStages('s1..s3', [stage('s1', 'a', 'b', { dead: (v) => v === 1 }), stage('s2', 'b', 'c', { dead: (v) => v === 20 }), stage('s3', 'c', 'd', {}, [], sent)]);
  const subscription = await runStage(chain, { transport, groupPrefix: 'chain-metrics' });
  await transport.producer().send([1, 2, 3].map((v) => ({ topic: 'a', key: `k${v}`, value: v })));
  for (let i = 0; i < 200 && sent.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  await subscription.stop();
  await transport.close();
  assert.equal(sent, ['s3'], 'the batch went through the chain once');
  assert.equal(await rejectedCounts(), { 's1/INVALID': 1, 's2/INVALID': 1 });
});

test.run();
