// A hostile SQS endpoint against the bridge as the product runs it (issue 41, finding 6): `faultline start --only
// bridge` on the real Kafka, reading a queue whose URL points at an HTTP server this suite runs. That server
// speaks the SQS JSON protocol by passing each call through to ElasticMQ ("good"), or answers as a broken or
// hostile endpoint would: `{"Messages":{}}`, `[null]`, `{"Messages":[null]}`, 100 MB, one byte every 5 s.
// Each attack: the process stays up, logs the failure naming it (no signature, no header), backs off and goes
// on. Then the server turns good again and messages flow: every one on fi.raw.v1 once, the queue empty. Last,
// SIGTERM while every poller is held by a trickling answer: the process drains and exits 0, where the product's
// own bound (SHUTDOWN_TIMEOUT_MS, README) would have exited 1 (docs/decisions.md#sqs-request-path-hardened).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CreateQueueCommand, DeleteQueueCommand, GetQueueAttributesCommand, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { infraEnv } from '../../infra/endpoints.js';
import { createSqsClient } from '../../stages/bridge/sqs-client.js';
import { TOPICS } from '../../schemas/avro/topics.js';
import type { RawMessage } from '../../schemas/avro/values.js';
import type { Subscription, Transport } from '../../stages/runtime/transport/transport.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { testKafkaTransport } from '../../support/kafka.js';
import { startFaultline, type FaultlineProcess } from '../../support/process.js';
import { randomName, waitFor } from '../../support/wait-for.js';
import { reportTally } from '../helpers/tally.js';
import { findSecrets } from './secrets.js';

const env = infraEnv();
const elasticmq = process.env.SQS_ENDPOINT ?? env.SQS_ENDPOINT!;
const sqs = createSqsClient({ queueUrl: `${elasticmq}/000000000000/admin`, endpoint: elasticmq });
const namespace = randomName('hostile-sqs');
const HUNDRED_MB = 100 * 1024 * 1024;

type Mode = 'good' | 'messages-object' | 'array-of-null' | 'null-message' | '100MB' | 'trickle';
let mode: Mode = 'good';
/** Per 100 MB answer: the bytes written before the client hung up (or the whole, had it read to the end). */
const hundredMbSent: number[] = [];
let trickling = 0;

let db: TestDatabase;
let server: Server;
let realQueueUrl = '';
let bridge: FaultlineProcess;
let transport: Transport;
/** The messageId of every record on fi.raw.v1 (the bridge's output). */
const raw: string[] = [];
let reader: Subscription;
const counts = { attacksTried: 0, attacksRefused: 0, sent: 0, stored: 0, duplicated: 0, lost: 0 };

/** What the hostile server answers in each mode; `good` passes the call through to ElasticMQ. */
async function answer(body: string, target: string, res: ServerResponse): Promise<void> {
  const json = (text: string) => res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end(text);
  // Only receives are attacked: deletes and probes of a batch received while good still reach ElasticMQ.
  const attacked = target === 'AmazonSQS.ReceiveMessage' ? mode : 'good';
  switch (attacked) {
    case 'messages-object': json('{"Messages":{}}'); return;
    case 'array-of-null': json('[null]'); return;
    case 'null-message': json('{"Messages":[null]}'); return;
    case '100MB': {
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      const chunk = Buffer.alloc(1024 * 1024, ' ');
      let sent = 0;
      const at = hundredMbSent.push(0) - 1;
      const more = () => {
        while (sent < HUNDRED_MB && !res.destroyed) {
          sent += chunk.length;
          hundredMbSent[at] = sent;
          if (!res.write(chunk)) { res.once('drain', more); return; }
        }
        if (!res.destroyed) res.end('{}');
      };
      more();
      return;
    }
    case 'trickle': {
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'content-length': '1000' });
      trickling++;
      const drip = setInterval(() => { if (res.destroyed) clearInterval(drip); else res.write(' '); }, 5_000);
      res.on('close', () => { clearInterval(drip); trickling--; });
      res.write(' ');
      return;
    }
    case 'good': {
      const input = JSON.parse(body) as Record<string, unknown>;
      const upstream = await fetch(elasticmq, {
        method: 'POST', headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': target },
        body: JSON.stringify({ ...input, QueueUrl: realQueueUrl }),
      });
      res.writeHead(upstream.status, { 'content-type': 'application/x-amz-json-1.0' }).end(await upstream.text());
    }
  }
}

test.before(async () => {
  db = await createTestDatabase('hostilesqs');
  const name = randomName('hostile-sqs');
  realQueueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: { VisibilityTimeout: '5' } }))).QueueUrl!;
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c.toString(); });
    req.on('end', () => { answer(body, String(req.headers['x-amz-target']), res).catch(() => res.destroy()); });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  transport = await testKafkaTransport(3, namespace);
  bridge = startFaultline(['start', '--only', 'bridge'], {
    KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? env.KAFKA_BROKERS!, SCHEMA_REGISTRY_URL: process.env.SCHEMA_REGISTRY_URL ?? env.SCHEMA_REGISTRY_URL!,
    KAFKA_NAMESPACE: namespace, KAFKA_PARTITIONS: '3', DATABASE_URL: db.url, DEMO_DATA: '0', SIMULATE: '0', LOG_LEVEL: 'info',
    // The queue URL names the hostile server (not an AWS host, so it is the endpoint: sqs-client.ts).
    SQS_QUEUE_URL: `http://127.0.0.1:${port}/000000000000/${name}`, SQS_ENDPOINT: '', SQS_POLLERS: '2', SQS_WAIT_SECONDS: '1',
  });
  await waitFor('the bridge process to start', () => bridge.output().includes('faultline is running'), { timeoutMs: 60_000 });
  reader = await transport.subscribe<RawMessage>({ groupId: randomName('hostile-sqs-reader'), topic: TOPICS.raw, eachBatch: async ({ messages }) => { raw.push(...messages.map((m) => m.value.messageId)); } });
});

test.after(async () => {
  await bridge?.stop('SIGKILL');
  await reader?.stop();
  await transport?.close();
  server?.closeAllConnections();
  server?.close();
  if (realQueueUrl) await sqs.send(new DeleteQueueCommand({ QueueUrl: realQueueUrl })).catch(() => {});
  sqs.destroy();
  await db?.drop();
  // The bridge's store is fi.raw.v1: "stored" counts the messages read back from it.
  reportTally('hostile-sqs', {
    attacksTried: counts.attacksTried, attacksRefused: counts.attacksRefused,
    messagesSent: counts.sent, messagesStored: counts.stored, duplicated: counts.duplicated, lost: counts.lost,
  });
});

function alive(): void {
  assert.is(bridge.child.exitCode, null, `the bridge process is still running\n${bridge.output().slice(-3000)}`);
}

/** Log lines of the bridge since `from` (an offset into its output) that say a receive failed with `problem`. */
function failuresLogged(from: number, problem: RegExp): string[] {
  return bridge.output().slice(from).split('\n').filter((l) => /SQS receive failed; backing off/.test(l) && problem.test(l));
}

/**
 * Turns the server hostile in `attack` mode until the bridge logged the failure naming `problem` from both of
 * its pollers, or one poller twice (so it backed off and tried again); the process must stay up all along.
 */
async function attack(attackMode: Mode, problem: RegExp, timeoutMs = 60_000): Promise<string[]> {
  counts.attacksTried++;
  const from = bridge.output().length;
  mode = attackMode;
  const lines = await waitFor(`the bridge to log "${attackMode}" twice`, () => { alive(); const l = failuresLogged(from, problem); return l.length >= 2 ? l : null; }, { timeoutMs, intervalMs: 200 });
  alive();
  assert.not.match(lines.join('\n'), /Signature=|AWS4-HMAC-SHA256|authorization|x-amz-date/i);
  counts.attacksRefused++;
  return lines;
}

test('{"Messages":{}}: refused as "Messages is an object, not an array", logged, backed off; the process stays up', async () => {
  await attack('messages-object', /Messages is an object, not an array/);
});

test('[null]: refused as "the answer is an array, not a JSON object"; the process stays up', async () => {
  await attack('array-of-null', /the answer is an array, not a JSON object/);
});

test('{"Messages":[null]}: refused as "Messages[0] is null"; the process stays up', async () => {
  await attack('null-message', /Messages\[0\] is null, not an object/);
});

test('100 MB: refused past the answer bound, the rest never read; the process stays up', async () => {
  const before = hundredMbSent.length;
  await attack('100MB', /over the \d+ byte bound/);
  mode = 'good';
  const answered = hundredMbSent.slice(before);
  assert.ok(answered.length >= 2);
  // Each 100 MB answer was cut off well before its end (the kernel's buffers hold a few MB more than were read).
  assert.ok(answered.every((n) => n < HUNDRED_MB / 2), `sent before the bridge hung up: ${answered.join(', ')} bytes`);
});

test('one byte every 5 s: the call ends at its deadline (wait + 15 s), logged; the process stays up', async () => {
  await attack('trickle', /no complete answer within \d+ ms/, 120_000);
});

test('the endpoint answers well again: messages flow, each on fi.raw.v1 once, the queue empty', async () => {
  mode = 'good';
  const ids = new Set<string>();
  for (let batch = 0; batch < 5; batch++) {
    const out = await sqs.send(new SendMessageBatchCommand({
      QueueUrl: realQueueUrl,
      Entries: Array.from({ length: 10 }, (_, i) => ({ Id: String(i), MessageBody: JSON.stringify({ device_data: { IMEINumber: `35000000000${String(batch * 10 + i).padStart(4, '0')}` } }) })),
    }));
    for (const ok of out.Successful ?? []) ids.add(ok.MessageId!);
  }
  assert.is(ids.size, 50);
  counts.sent += ids.size;
  await waitFor('every message on fi.raw.v1', () => { alive(); return raw.filter((id) => ids.has(id)).length >= ids.size; }, { timeoutMs: 90_000, intervalMs: 250 })
    .catch((err: Error) => { throw new Error(`${err.message}: ${raw.length} records read\n${bridge.output().slice(-4000)}`); });
  await waitFor('the queue to be empty', async () => {
    const { Attributes = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: realQueueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }));
    return Attributes.ApproximateNumberOfMessages === '0' && Attributes.ApproximateNumberOfMessagesNotVisible === '0';
  }, { timeoutMs: 30_000, intervalMs: 250 });
  const seen = new Map<string, number>();
  for (const id of raw) if (ids.has(id)) seen.set(id, (seen.get(id) ?? 0) + 1);
  counts.stored += seen.size;
  counts.lost += ids.size - seen.size;
  counts.duplicated += [...seen.values()].reduce((n, c) => n + c - 1, 0);
  assert.equal([counts.lost, counts.duplicated], [0, 0]);
  alive();
});

test('SIGTERM while every poller is held by a trickling answer: drained, exit 0 (inside SHUTDOWN_TIMEOUT_MS)', async () => {
  mode = 'trickle';
  await waitFor('both pollers held by a trickling answer', () => { alive(); return trickling >= 2; }, { timeoutMs: 30_000, intervalMs: 100 });
  const code = await bridge.stop('SIGTERM');
  const out = bridge.output();
  // Past SHUTDOWN_TIMEOUT_MS the product exits 1 with "drain did not finish in time" (cli/drain.ts).
  assert.is(code, 0, `exit code\n${out.slice(-3000)}`);
  assert.match(out, /drained/);
  assert.not.match(out, /did not finish in time/);
});

test('the logs: no crash, no unhandled rejection, no signature, no fixture secret', () => {
  const logs = bridge.output();
  assert.not.match(logs, /Uncaught|unhandled|FATAL|"level":60/i);
  assert.not.match(logs, /Signature=|AWS4-HMAC-SHA256|authorization/i);
  assert.equal(findSecrets(logs), []);
});

test.run();
