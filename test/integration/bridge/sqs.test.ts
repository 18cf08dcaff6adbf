// The SQS source against a real ElasticMQ (infra/up.sh; SQS_ENDPOINT): fixtures end to end, 2,000 messages
// with no loss and no duplicate, and a failing producer whose messages are not deleted, come back after the
// visibility timeout and are published once the producer recovers. Each test makes its own queue.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CreateQueueCommand, DeleteQueueCommand, GetQueueAttributesCommand, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { setTimeout as sleep } from 'node:timers/promises';
import { infraEnv } from '../../../infra/endpoints.js';
import { simulate } from '../../../simulator/run-simulation.js';
import { createSqsQueueApi, SqsError, type SqsQueueApi } from '../../../stages/bridge/sqs-api.js';
import { createSqsClient } from '../../../stages/bridge/sqs-client.js';
import { sqsSource } from '../../../stages/bridge/sqs-source.js';
import type { Transport } from '../../../stages/runtime/transport/transport.js';
import { cleanupList } from '../../bridge/cleanup.js';
import { collect } from '../../bridge/collector.js';
import { flakyTransport } from '../../bridge/flaky-transport.js';
import { expectedFor, messageBody, messageFiles } from '../../domain/fixtures.js';
import { randomName, waitFor } from '../../../support/wait-for.js';

const endpoint = process.env.SQS_ENDPOINT ?? infraEnv().SQS_ENDPOINT!;
const FAST = { initialMs: 20, maxMs: 200 };
const quiet = () => {};
const admin = createSqsClient({ queueUrl: `${endpoint}/000000000000/admin`, endpoint });
const cleanup = cleanupList();

test.after.each(() => cleanup.run());
test.after(() => { admin.destroy(); });

async function createQueue(attributes: Record<string, string> = {}): Promise<string> {
  const { QueueUrl } = await admin.send(new CreateQueueCommand({ QueueName: randomName('bridge'), Attributes: attributes }));
  assert.ok(QueueUrl);
  cleanup.add(() => admin.send(new DeleteQueueCommand({ QueueUrl })));
  return QueueUrl;
}

async function queueDepth(queueUrl: string): Promise<{ visible: number; inFlight: number }> {
  const { Attributes = {} } = await admin.send(new GetQueueAttributesCommand({
    QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
  }));
  return { visible: Number(Attributes.ApproximateNumberOfMessages), inFlight: Number(Attributes.ApproximateNumberOfMessagesNotVisible) };
}

/** Sends the fixtures; returns SQS MessageId -> fixture file (002 and 003 have the same body). */
async function sendFixtures(queueUrl: string, files: string[]): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (let i = 0; i < files.length; i += 10) {
    const chunk = files.slice(i, i + 10);
    const out = await admin.send(new SendMessageBatchCommand({
      QueueUrl: queueUrl, Entries: chunk.map((file, j) => ({ Id: String(j), MessageBody: messageBody(file) })),
    }));
    assert.is(out.Failed?.length ?? 0, 0, 'every message accepted by SQS');
    for (const ok of out.Successful ?? []) ids.set(ok.MessageId!, chunk[Number(ok.Id)]!);
  }
  assert.is(ids.size, files.length);
  return ids;
}



test('fixtures: good ones on fi.raw.v1 once each keyed by IMEI, 013/014 on fi.dlq.v1, queue empty', async () => {
  const queueUrl = await createQueue();
  const files = messageFiles();
  const fileOf = await sendFixtures(queueUrl, files);
  const t = cleanup.transport();
  const reader = await collect(t);
  const source = await cleanup.start(sqsSource({ transport: t, queueUrl, endpoint, pollers: 3, log: quiet, backoff: FAST }));
  await waitFor('14 records', () => reader.raw.length + reader.dlq.length >= 14, { timeoutMs: 15_000 });
  await waitFor('14 deletes', () => source.stats().deleted >= 14, { timeoutMs: 5_000 });
  await sleep(1200); // one more long-poll round: nothing may come back
  await source.stop();

  assert.equal(source.stats(), { received: 14, published: 12, deadLettered: 2, deleted: 14, errors: 0 });
  assert.is(reader.raw.length, 12);
  const seen = new Set<string>();
  for (const r of reader.raw) {
    const file = fileOf.get(r.value.messageId);
    assert.ok(file, 'the record carries the SQS MessageId');
    assert.not.ok(seen.has(file!), `${file} published once`);
    seen.add(file!);
    assert.is(r.value.body, messageBody(file!), 'body arrives unchanged');
    const expected = expectedFor(file!);
    assert.is(r.key, expected.imei ?? expected.unregistered, file);
    assert.is(r.value.source, 'sqs');
  }
  assert.is(seen.size, 12);
  const dead = new Map(reader.dlq.map((r) => [fileOf.get(r.value.messageId), r]));
  assert.is(dead.size, 2);
  assert.is(dead.get('013-malformed-json.json')?.value.code, 'MALFORMED');
  assert.match(dead.get('013-malformed-json.json')?.value.reason ?? '', /not valid JSON/);
  assert.is(dead.get('014-missing-imei.json')?.value.code, 'INVALID');
  assert.match(dead.get('014-missing-imei.json')?.value.reason ?? '', /device_data\.IMEINumber/);
  for (const r of reader.dlq) assert.is(r.key, r.value.messageId, 'dead letters without an IMEI are keyed by the SQS MessageId');

  await reader.stop();
  assert.equal(await queueDepth(queueUrl), { visible: 0, inFlight: 0 });
});

test('2,000 simulated messages: none lost, none duplicated, queue empty', async () => {
  const queueUrl = await createQueue();
  const t = cleanup.transport();
  const reader = await collect(t);
  const source = await cleanup.start(sqsSource({ transport: t, queueUrl, endpoint, pollers: 3, log: quiet, backoff: FAST }));
  const sent = await simulate({ devices: 50, rate: Infinity, count: 2000, to: 'sqs', queueUrl, endpoint, seed: 9 }, () => {});
  assert.is(sent.sent, 2000);
  await waitFor('2,000 records', () => reader.raw.length + reader.dlq.length >= 2000, { timeoutMs: 60_000 });
  await waitFor('2,000 deletes', () => source.stats().deleted >= 2000, { timeoutMs: 10_000 });
  await sleep(1200);
  await source.stop();
  await reader.stop();

  assert.is(reader.dlq.length, 0);
  assert.is(reader.raw.length, 2000, 'no duplicate and no loss');
  assert.is(new Set(reader.raw.map((r) => r.value.messageId)).size, 2000);
  assert.is(new Set(reader.raw.map((r) => r.value.body)).size, 2000);
  assert.is(new Set(reader.raw.map((r) => r.key)).size, 50);
  const stats = source.stats();
  assert.equal([stats.received, stats.published, stats.deleted, stats.errors], [2000, 2000, 2000, 0]);
  assert.equal(await queueDepth(queueUrl), { visible: 0, inFlight: 0 });
});

interface Call { at: number; command: string; received?: { id: string; handle: string }[]; deleted?: string[] }

/** A client that records receives (message id and receipt handle) and deletes (receipt handles), with times. */
function recordingClient(queueUrl: string): { client: SqsQueueApi; calls: Call[] } {
  const inner = createSqsQueueApi({ queueUrl, endpoint });
  const calls: Call[] = [];
  const client: SqsQueueApi = {
    ...inner,
    async receive(input) {
      const messages = await inner.receive(input);
      // When the answer came: a received message's visibility timeout runs from here.
      if (messages.length) calls.push({ at: Date.now(), command: 'receive', received: messages.map((m) => ({ id: m.MessageId!, handle: m.ReceiptHandle! })) });
      return messages;
    },
    async deleteBatch(entries) {
      const out = await inner.deleteBatch(entries);
      calls.push({ at: Date.now(), command: 'delete', deleted: entries.map((e) => e.ReceiptHandle) });
      return out;
    },
  };
  cleanup.add(async () => inner.destroy());
  return { client, calls };
}

test('a producer failing its first 3 sends: nothing deleted, messages return after the visibility timeout, published once', async () => {
  const queueUrl = await createQueue({ VisibilityTimeout: '2' });
  const files = messageFiles();
  await sendFixtures(queueUrl, files);
  const inner = cleanup.transport();
  const t = flakyTransport(inner, 3);
  const reader = await collect(inner);
  const { client, calls } = recordingClient(queueUrl);
  const source = await cleanup.start(sqsSource({ transport: t, queueUrl, client, pollers: 3, log: quiet, backoff: FAST }));
  await waitFor('14 records', () => reader.raw.length + reader.dlq.length >= 14, { timeoutMs: 20_000 });
  await waitFor('14 deletes', () => source.stats().deleted >= 14, { timeoutMs: 5_000 });
  await sleep(2500); // past another visibility timeout: nothing may come back
  await source.stop();
  await reader.stop();

  // Which messages were in the three failed sends.
  const failedIds = new Set(t.batches.slice(0, 3).flat().map((m) => (m.value as { messageId: string }).messageId));
  assert.ok(failedIds.size > 0);
  const receives = calls.filter((c) => c.command === 'receive');
  const deletedHandles = new Set(calls.flatMap((c) => c.deleted ?? []));
  for (const id of failedIds) {
    const got = receives.flatMap((c) => (c.received ?? []).filter((m) => m.id === id).map((m) => ({ at: c.at, handle: m.handle })));
    assert.ok(got.length >= 2, `${id} was received again`);
    assert.not.ok(deletedHandles.has(got[0]!.handle), `${id} was not deleted after the failed publish`);
    assert.ok(got[1]!.at - got[0]!.at >= 1500, `${id} came back only after the visibility timeout (${got[1]!.at - got[0]!.at} ms)`);
    assert.ok(deletedHandles.has(got[got.length - 1]!.handle), `${id} deleted after it was published`);
  }

  const all = [...reader.raw, ...reader.dlq].map((r) => r.value.messageId);
  assert.is(all.length, 14, 'each message published exactly once');
  assert.is(new Set(all).size, 14);
  const stats = source.stats();
  assert.is(stats.errors, 3);
  assert.is(stats.deleted, 14);
  assert.ok(stats.received >= 14 + failedIds.size);
  assert.equal(await queueDepth(queueUrl), { visible: 0, inFlight: 0 });
});

test('a batch\'s delete overlaps the next receive: one poller sends its next receive while the delete is still unanswered', async () => {
  const queueUrl = await createQueue({ VisibilityTimeout: '30' });
  await sendFixtures(queueUrl, messageFiles().slice(0, 10));
  const t = cleanup.transport();
  const reader = await collect(t);
  // Every delete is held until a receive is sent after it (or 10 s pass): with a poller that waited for its
  // delete, no receive could come, and each delete would be released by the fallback instead.
  const inner = createSqsQueueApi({ queueUrl, endpoint });
  cleanup.add(async () => inner.destroy());
  const held: (() => void)[] = [];
  const releases: string[] = [];
  const client: SqsQueueApi = {
    ...inner,
    receive(input) {
      for (const release of held.splice(0)) release();
      return inner.receive(input);
    },
    async deleteBatch(entries) {
      await new Promise<void>((resolve) => {
        const fallback = setTimeout(() => { releases.push('fallback'); resolve(); }, 10_000);
        held.push(() => { clearTimeout(fallback); releases.push('receive'); resolve(); });
      });
      return inner.deleteBatch(entries);
    },
  };
  const source = await cleanup.start(sqsSource({ transport: t, queueUrl, client, pollers: 1, waitTimeSeconds: 1, log: quiet, backoff: FAST }));
  await waitFor('10 deletes', () => source.stats().deleted >= 10, { timeoutMs: 30_000 });
  await source.stop();
  await reader.stop();
  assert.ok(releases.length >= 1);
  assert.is(releases[0], 'receive', 'the first delete was still in flight when the poller sent its next receive');
  assert.equal(await queueDepth(queueUrl), { visible: 0, inFlight: 0 });
});

test('stop() during a long poll: what that receive got is published and deleted, nothing is left in flight', async () => {
  const queueUrl = await createQueue({ VisibilityTimeout: '30' });
  const t = cleanup.transport();
  const reader = await collect(t);
  const source = await cleanup.start(sqsSource({ transport: t, queueUrl, endpoint, pollers: 2, waitTimeSeconds: 5, log: quiet, backoff: FAST }));
  await sleep(300); // both pollers are inside their long poll now
  const stopped = source.stop();
  await sendFixtures(queueUrl, messageFiles().slice(0, 5)); // arrives while the polls are still open
  const started = Date.now();
  await stopped;
  // One 5 s poll may run out; a second would take the stop past 10 s.
  assert.ok(Date.now() - started < 10_000, `stop() waits at most one long poll (took ${Date.now() - started} ms)`);
  await sleep(100);
  await reader.stop();

  const stats = source.stats();
  const depth = await queueDepth(queueUrl);
  assert.is(depth.inFlight, 0, 'no message received and then abandoned (it would stay invisible for 30 s)');
  assert.is(depth.visible + stats.received, 5, 'the rest is still waiting in the queue');
  assert.is(stats.deleted, stats.received);
  assert.is(reader.raw.length, stats.published);
  assert.is(stats.errors, 0);
  assert.ok(stats.received > 0, 'the open polls did return messages sent during stop()');
});

test('while the transport is down (ready() false) nobody receives, so receive counts do not climb', async () => {
  const queueUrl = await createQueue({ VisibilityTimeout: '1' });
  const files = messageFiles();
  await sendFixtures(queueUrl, files);
  const inner = cleanup.transport();
  let down = true;
  const outage: Transport = {
    ...inner,
    producer: () => ({ send: async (m) => { if (down) throw new Error('broker down (test)'); await inner.producer().send(m); } }),
    ready: async () => !down,
  };
  const reader = await collect(inner);
  const { client, calls } = recordingClient(queueUrl);
  // Each receive as it starts: was the transport down, and had a publish failed already? A poller that was
  // inside a receive when the first publish failed may still get a batch (how many do depends on how the
  // race falls on a loaded machine); a receive STARTED after a failed publish while the transport is down can
  // only come from a poller that did not ask ready() first. That is the outcome asserted.
  let errorsSoFar = () => 0;
  const receivesStarted: { down: boolean; afterFailure: boolean }[] = [];
  const recorded = client.receive.bind(client);
  client.receive = (input) => {
    receivesStarted.push({ down, afterFailure: errorsSoFar() > 0 });
    return recorded(input);
  };
  const source = await cleanup.start(sqsSource({ transport: outage, queueUrl, client, pollers: 3, log: quiet, backoff: { initialMs: 50, maxMs: 200 } }));
  errorsSoFar = () => source.stats().errors;
  await waitFor('a failed publish', () => source.stats().errors > 0, { timeoutMs: 5_000 });
  await sleep(3000); // three visibility timeouts: an unguarded poller would receive every message again and again
  const guarded = receivesStarted.filter((r) => r.down && r.afterFailure).length;
  assert.ok(receivesStarted.some((r) => r.down && !r.afterFailure), 'receives did run before the first failure (the check can fail)');
  assert.is(guarded, 0, `no receive started after a failed publish while the transport was down (${guarded} did)`);
  down = false;
  await waitFor('14 records', () => reader.raw.length + reader.dlq.length >= 14, { timeoutMs: 10_000 });
  await waitFor('14 deletes', () => source.stats().deleted >= 14, { timeoutMs: 5_000 });
  await source.stop();
  await reader.stop();
  assert.is(new Set([...reader.raw, ...reader.dlq].map((r) => r.value.messageId)).size, 14);
  assert.is(reader.raw.length + reader.dlq.length, 14);
  assert.ok(calls.length > 0);
  assert.equal(await queueDepth(queueUrl), { visible: 0, inFlight: 0 });
});

test('the bridge\'s request path against ElasticMQ: attributes of a queue; a queue that does not exist is QueueDoesNotExist', async () => {
  const queueUrl = await createQueue({ VisibilityTimeout: '7' });
  const api = createSqsQueueApi({ queueUrl, endpoint });
  const gone = createSqsQueueApi({ queueUrl: `${queueUrl}-gone`, endpoint });
  cleanup.add(async () => { api.destroy(); gone.destroy(); });
  assert.is((await api.attributes(['VisibilityTimeout'])).VisibilityTimeout, '7');
  const err = await gone.receive({ maxMessages: 10, waitTimeSeconds: 0 }).then(() => undefined, (e: unknown) => e);
  assert.instance(err, SqsError);
  assert.is((err as SqsError).code, 'QueueDoesNotExist', String(err));
});

test.run();
