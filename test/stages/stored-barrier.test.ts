// fault-compute's wait for persist in a split shape (stages/runtime/stored-barrier.ts, docs/pipeline.md#state-across-a-cut),
// on the in-process transport: it waits until the storing group committed what the topic held when it began, not
// for what came later; an empty topic is no wait for a group that never committed; and a failed heartbeat (a
// rebalance) or a stop ends the wait with a retriable error, with nothing left counted as waiting.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { registry } from '../../config/metrics.js';
import { classifyFailure } from '../../stages/runtime/failure.js';
import { localAvroCodec } from '../../stages/runtime/codec.js';
import { storedBarrier, StoreWaitInterrupted } from '../../stages/runtime/stored-barrier.js';
import { memoryTransport } from '../../stages/runtime/transport/memory.js';
import type { BatchControls, Transport } from '../../stages/runtime/transport/transport.js';

const STAGE = 'barrier-test';
const running: BatchControls = { isRunning: () => true, heartbeat: async () => {} };

async function waiting(): Promise<number> {
  const values = (await registry.getSingleMetric('faultline_stage_waiting_partitions')?.get())?.values ?? [];
  return values.filter((v) => v.labels.stage === STAGE).reduce((sum, v) => sum + v.value, 0);
}

async function rig(records: number): Promise<{ transport: Transport; barrier: ReturnType<typeof storedBarrier> }> {
  const transport = memoryTransport({ codec: localAvroCodec(), partitions: 1, retryDelayMs: 10 });
  await transport.ensureTopics(['in', 'out']);
  await transport.producer().send(Array.from({ length: records }, (_, i) => ({ topic: 'out', key: 'd', value: { n: i } })));
  return { transport, barrier: storedBarrier({ transport, stage: STAGE, input: 'in', group: 'storing', topic: 'out', pollMs: 10 }) };
}

test('an empty topic and a group that never committed: no wait', async () => {
  const { transport, barrier } = await rig(0);
  await barrier(0, { isRunning: () => true, heartbeat: () => Promise.reject(new Error('never asked')) });
  await transport.close();
});

test('waits until the storing group committed what the topic held when it began, then goes on; later records are not waited for', async () => {
  const { transport, barrier } = await rig(3);
  let done = false;
  const wait = barrier(0, running).then(() => { done = true; });
  // The storing group is not there yet: the wait goes on, and says so.
  while ((await waiting()) === 0) await new Promise((r) => setTimeout(r, 5));
  assert.is(done, false);
  const stored: number[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => { release = resolve; });
  const storing = await transport.subscribe<{ n: number }>({
    groupId: 'storing', topic: 'out', maxBatchSize: 1,
    async eachBatch(batch) {
      const { n } = batch.messages[0]!.value;
      // A record that arrives after the wait began, held uncommitted until the wait is over: not waited for.
      if (n === 0) await transport.producer().send([{ topic: 'out', key: 'd', value: { n: 99 } }]);
      if (n === 99) await released;
      stored.push(n);
    },
  });
  await wait;
  release();
  assert.equal(stored.slice(0, 3), [0, 1, 2], 'every record the topic held when the wait began was stored first');
  assert.is(await waiting(), 0);
  await storing.stop();
  await transport.close();
});

test('a failed heartbeat (its group rebalancing) ends the wait: retriable, nothing left waiting', async () => {
  const { transport, barrier } = await rig(2);
  const err = await barrier(0, { isRunning: () => true, heartbeat: () => Promise.reject(new Error('The group is rebalancing')) }).then(() => null, (e: unknown) => e);
  assert.instance(err, StoreWaitInterrupted);
  assert.is(classifyFailure(err), 'outage', 'the batch is delivered again, not dead-lettered');
  assert.is(await waiting(), 0);
  await transport.close();
});

test('a stop ends the wait: retriable, nothing left waiting', async () => {
  const { transport, barrier } = await rig(2);
  let stopping = false;
  const wait = barrier(0, { isRunning: () => !stopping, heartbeat: async () => {} }).then(() => null, (e: unknown) => e);
  while ((await waiting()) === 0) await new Promise((r) => setTimeout(r, 5));
  stopping = true;
  const err = await wait;
  assert.instance(err, StoreWaitInterrupted);
  assert.is(classifyFailure(err), 'outage');
  assert.is(await waiting(), 0);
  await transport.close();
});

test.run();
