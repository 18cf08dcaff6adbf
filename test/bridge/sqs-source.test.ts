// The SQS source without ElasticMQ: client settings, that an unreachable server is backed off from, counted
// and logged, never a crash, and that stop() returns promptly, also while a server trickles an answer. Real
// ElasticMQ runs are in test/integration/bridge/sqs.test.ts; hostile answers in test/security/hostile-sqs.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sqsClientConfig } from '../../stages/bridge/sqs-client.js';
import { sqsSource } from '../../stages/bridge/sqs-source.js';
import { localAvroCodec } from '../../stages/runtime/codec.js';
import { memoryTransport } from '../../stages/runtime/transport/memory.js';
import { waitFor } from '../../support/wait-for.js';

test('ElasticMQ: endpoint from the queue URL, region elasticmq, dummy credentials', () => {
  const c = sqsClientConfig({ queueUrl: 'http://127.0.0.1:29324/000000000000/device-messages' });
  assert.is(c.endpoint, 'http://127.0.0.1:29324');
  assert.is(c.region, 'elasticmq');
  assert.ok(c.credentials && typeof c.credentials === 'object' && 'accessKeyId' in c.credentials);
});

test('an explicit endpoint, region and credentials win', () => {
  const credentials = { accessKeyId: 'a', secretAccessKey: 'b' };
  const c = sqsClientConfig({ queueUrl: 'http://127.0.0.1:29324/0/q', endpoint: 'http://127.0.0.1:29324', region: 'us-east-2', credentials });
  assert.equal([c.endpoint, c.region, c.credentials], ['http://127.0.0.1:29324', 'us-east-2', credentials]);
});

test('AWS: no endpoint, the region given (AWS_REGION via the settings), credentials left to the SDK chain', () => {
  const queueUrl = 'https://sqs.eu-west-1.amazonaws.com/123456789012/device-messages';
  const c = sqsClientConfig({ queueUrl, region: 'eu-west-1' });
  assert.is(c.endpoint, undefined);
  assert.is(c.region, 'eu-west-1');
  assert.is(c.credentials, undefined);
  // No region given: none set here, so the SDK's own chain decides.
  assert.is(sqsClientConfig({ queueUrl }).region, undefined);
});

test('an endpoint on another host than the queue URL is logged at construction', () => {
  const logs: string[] = [];
  sqsClientConfig({ queueUrl: 'http://127.0.0.1:29324/0/q', endpoint: 'http://localhost:29324' }, (_l, m) => logs.push(m));
  assert.is(logs.length, 1);
  assert.match(logs[0]!, /different hosts/);
});

test('bad options are refused at construction', () => {
  const transport = memoryTransport({ codec: localAvroCodec() });
  assert.throws(() => sqsSource({ transport, queueUrl: 'http://127.0.0.1:1/0/q', pollers: 0 }), /pollers/);
  assert.throws(() => sqsSource({ transport, queueUrl: 'http://127.0.0.1:1/0/q', waitTimeSeconds: 21 }), /waitTimeSeconds/);
});

test('no server: receives fail, are counted and logged, backed off; no crash; stop() returns promptly', async () => {
  const transport = memoryTransport({ codec: localAvroCodec() });
  const logs: { level: string; message: string; extra?: Record<string, unknown> }[] = [];
  // Port 1 on loopback: connection refused at once.
  const source = sqsSource({
    transport, queueUrl: 'http://127.0.0.1:1/000000000000/nowhere', pollers: 2,
    // A back-off far longer than the test: stop() returning well inside it shows it did not wait it out.
    backoff: { initialMs: 20_000, maxMs: 60_000 }, log: (level, message, extra) => logs.push({ level, message, ...(extra ? { extra } : {}) }),
  });
  await source.start();
  await waitFor('both pollers failed once and are backing off', () => source.stats().errors >= 2);
  const started = Date.now();
  await source.stop();
  assert.ok(Date.now() - started < 15_000, `stop() does not wait for the 20 s back-off to run out (took ${Date.now() - started} ms)`);
  const stats = source.stats();
  assert.ok(stats.errors >= 2, `errors counted (${stats.errors})`);
  assert.equal([stats.received, stats.published, stats.deleted], [0, 0, 0]);
  assert.is(logs.length, stats.errors);
  assert.ok(logs.every((l) => l.level === 'warn' && /receive failed/.test(l.message)));
  // Backed off: one failed receive per poller, not the hundreds an unthrottled loop would make.
  assert.ok(stats.errors < 10, `backed off (${stats.errors} failures)`);
  await transport.close();
});

test('a receive held by a trickling server: stop() cuts it short once the wait plus STOP_GRACE_MS passed, and logs it', async () => {
  const transport = memoryTransport({ codec: localAvroCodec() });
  let held = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      held++;
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'content-length': '100000' });
      const drip = setInterval(() => { if (res.destroyed) clearInterval(drip); else res.write(' '); }, 100);
      res.on('close', () => clearInterval(drip));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const logs: string[] = [];
  // A call deadline far past the test: only stop() can end the held receive.
  const source = sqsSource({ transport, queueUrl: `http://127.0.0.1:${port}/000000000000/q`, pollers: 1, waitTimeSeconds: 0, requestTimeoutMs: 600_000, log: (_l, m, extra) => logs.push(`${m} ${String(extra?.error)}`) });
  try {
    await source.start();
    await waitFor('the receive held by the trickling server', () => held >= 1);
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([source.stop().then(() => 'stopped'), new Promise((r) => { timer = setTimeout(() => r('still stopping'), 60_000); })]);
    clearTimeout(timer);
    assert.is(outcome, 'stopped');
    assert.ok(logs.some((l) => /receive failed.*ReceiveMessage: aborted/.test(l)), logs.join('\n'));
  } finally {
    server.closeAllConnections();
    server.close();
    await transport.close();
  }
});

test.run();
