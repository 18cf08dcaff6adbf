// The bridge's own SQS request path (stages/bridge/sqs-api.ts) without ElasticMQ: where requests go, what a
// request carries (the SQS JSON protocol, SigV4 with the region and service in its scope), how an error answer
// and a server that never answers come back. A local HTTP server stands in where AWS cannot run here; the
// calls against ElasticMQ are in test/integration/bridge/sqs.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSqsQueueApi, regionOfQueueUrl, SqsError, sqsApiTarget } from '../../stages/bridge/sqs-api.js';

test('AWS: the region the queue URL names, its regional endpoint; credentials left to the SDK chain', () => {
  const t = sqsApiTarget({ queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/device-messages' });
  assert.equal([t.endpoint.href, t.region, t.credentials], ['https://sqs.eu-west-1.amazonaws.com/', 'eu-west-1', undefined]);
  assert.is(regionOfQueueUrl('https://us-east-2.queue.amazonaws.com/123456789012/q'), 'us-east-2');
  assert.is(regionOfQueueUrl('http://127.0.0.1:29324/000000000000/q'), undefined);
  // The setting wins over the URL.
  assert.is(sqsApiTarget({ queueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/q', region: 'eu-central-1' }).region, 'eu-central-1');
});

test('ElasticMQ: the queue URL\'s origin, region elasticmq, dummy credentials (as the SDK client gets them)', () => {
  const t = sqsApiTarget({ queueUrl: 'http://127.0.0.1:29324/000000000000/device-messages' });
  assert.equal([t.endpoint.origin, t.region], ['http://127.0.0.1:29324', 'elasticmq']);
  assert.ok(t.credentials?.accessKeyId);
});

interface Seen { method: string; url: string; headers: IncomingHttpHeaders; body: string }

/** A server answering every request with `answer` (or never), recording what it got. */
async function server(answer: { status: number; body: string } | 'never'): Promise<{ url: string; seen: Seen[]; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  const s: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c.toString(); });
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      if (answer === 'never') return;
      res.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0' }).end(answer.body);
    });
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((r) => { s.closeAllConnections(); s.close(() => r()); }) };
}

test('a receive is one signed POST of the JSON protocol naming the queue, and its messages come back', async () => {
  const srv = await server({ status: 200, body: JSON.stringify({ Messages: [{ MessageId: 'm1', ReceiptHandle: 'h1', Body: '{"a":1}' }] }) });
  const api = createSqsQueueApi({ queueUrl: `${srv.url}/000000000000/q`, region: 'us-east-2', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' } });
  try {
    const messages = await api.receive({ maxMessages: 10, waitTimeSeconds: 1, visibilityTimeoutSeconds: 30 });
    assert.equal(messages, [{ MessageId: 'm1', ReceiptHandle: 'h1', Body: '{"a":1}' }]);
    const [req] = srv.seen;
    assert.equal([req!.method, req!.url, req!.headers['x-amz-target'], req!.headers['content-type']], ['POST', '/', 'AmazonSQS.ReceiveMessage', 'application/x-amz-json-1.0']);
    assert.equal(JSON.parse(req!.body), { QueueUrl: `${srv.url}/000000000000/q`, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, VisibilityTimeout: 30 });
    const auth = String(req!.headers.authorization);
    assert.match(auth, /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-2\/sqs\/aws4_request, SignedHeaders=[a-z0-9;-]*host;[a-z0-9;-]*x-amz-target[a-z0-9;-]*, Signature=[0-9a-f]{64}$/);
    assert.ok(req!.headers['x-amz-date'], 'signed with a date');
  } finally {
    api.destroy();
    await srv.close();
  }
});

test('an error answer is an SqsError with the protocol\'s code and message, no stack of the server\'s', async () => {
  const srv = await server({ status: 400, body: JSON.stringify({ __type: 'com.amazonaws.sqs#QueueDoesNotExist', message: 'The specified queue does not exist.' }) });
  const api = createSqsQueueApi({ queueUrl: `${srv.url}/000000000000/gone` });
  try {
    const err = await api.deleteBatch([{ Id: '0', ReceiptHandle: 'h' }]).then(() => undefined, (e: unknown) => e);
    assert.instance(err, SqsError);
    assert.equal([(err as SqsError).code, (err as SqsError).status, (err as SqsError).message], ['QueueDoesNotExist', 400, 'QueueDoesNotExist: The specified queue does not exist.']);
  } finally {
    api.destroy();
    await srv.close();
  }
});

test('a server that never answers: the request fails after its timeout, and an abort signal ends it sooner', async () => {
  const srv = await server('never');
  const api = createSqsQueueApi({ queueUrl: `${srv.url}/000000000000/q`, requestTimeoutMs: 300 });
  try {
    const err = await api.receive({ maxMessages: 10, waitTimeSeconds: 0 }).then(() => undefined, (e: unknown) => e);
    assert.match(String(err), /ReceiveMessage: no answer within 300 ms/);
    const aborted = await api.attributes(['QueueArn'], AbortSignal.timeout(50)).then(() => undefined, (e: unknown) => e);
    assert.ok(aborted instanceof Error && /abort/i.test(`${aborted.name} ${aborted.message}`), String(aborted));
  } finally {
    api.destroy();
    await srv.close();
  }
});

test.run();
