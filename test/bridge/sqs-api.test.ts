// The bridge's own SQS request path (stages/bridge/sqs-api.ts) without ElasticMQ: where requests go (every form
// of AWS queue URL), what a request carries (the SQS JSON protocol, SigV4 with the region and service in its
// scope), how an error answer, a server that never answers, one that trickles, one that answers too much or the
// wrong shape come back: each a rejected call, never a hang (one that never accepts the connection:
// sqs-connect-timeout.test.ts). A local HTTP server stands in where AWS cannot run here; the
// calls against ElasticMQ are in test/integration/bridge/sqs.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSqsQueueApi, SqsError, sqsApiTarget } from '../../stages/bridge/sqs-api.js';
import { SqsAnswerError } from '../../stages/bridge/sqs-answers.js';
import { regionOfQueueUrl } from '../../stages/bridge/sqs-endpoint.js';
import { outcome } from './call-outcome.js';

test('AWS: the region the queue URL names, its regional endpoint; credentials left to the SDK chain', () => {
  const t = sqsApiTarget({ queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/device-messages' });
  assert.equal([t.endpoint.href, t.region, t.credentials], ['https://sqs.eu-west-1.amazonaws.com/', 'eu-west-1', undefined]);
  assert.is(regionOfQueueUrl('https://us-east-2.queue.amazonaws.com/123456789012/q'), 'us-east-2');
  assert.is(regionOfQueueUrl('http://127.0.0.1:29324/000000000000/q'), undefined);
  // The setting wins over the URL.
  assert.is(sqsApiTarget({ queueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/q', region: 'eu-central-1' }).region, 'eu-central-1');
});

test('AWS: requests go to the queue URL\'s own host (VPC endpoint, FIPS, China, dual-stack), signed for its region and `sqs`', () => {
  const forms: [string, string, string][] = [
    // queue URL, endpoint origin, signing region
    ['https://sqs.us-east-1.amazonaws.com/123456789012/q', 'https://sqs.us-east-1.amazonaws.com', 'us-east-1'],
    ['https://vpce-0a1b2c3d4e5f6a7b8-abcdefgh.sqs.us-east-1.vpce.amazonaws.com/123456789012/q', 'https://vpce-0a1b2c3d4e5f6a7b8-abcdefgh.sqs.us-east-1.vpce.amazonaws.com', 'us-east-1'],
    ['https://vpce-0a1b2c3d4e5f6a7b8-abcdefgh-us-east-1a.sqs.us-east-1.vpce.amazonaws.com/123456789012/q', 'https://vpce-0a1b2c3d4e5f6a7b8-abcdefgh-us-east-1a.sqs.us-east-1.vpce.amazonaws.com', 'us-east-1'],
    ['https://sqs-fips.us-east-1.amazonaws.com/123456789012/q', 'https://sqs-fips.us-east-1.amazonaws.com', 'us-east-1'],
    ['https://sqs-fips.us-gov-west-1.amazonaws.com/123456789012/q', 'https://sqs-fips.us-gov-west-1.amazonaws.com', 'us-gov-west-1'],
    ['https://sqs.cn-north-1.amazonaws.com.cn/123456789012/q', 'https://sqs.cn-north-1.amazonaws.com.cn', 'cn-north-1'],
    ['https://vpce-0123456789abcdef0-abcd.sqs.cn-northwest-1.vpce.amazonaws.com.cn/123456789012/q', 'https://vpce-0123456789abcdef0-abcd.sqs.cn-northwest-1.vpce.amazonaws.com.cn', 'cn-northwest-1'],
    ['https://sqs.eu-central-2.api.aws/123456789012/q', 'https://sqs.eu-central-2.api.aws', 'eu-central-2'],
    ['https://ap-southeast-2.queue.amazonaws.com/123456789012/q', 'https://ap-southeast-2.queue.amazonaws.com', 'ap-southeast-2'],
    ['https://queue.amazonaws.com/123456789012/q', 'https://queue.amazonaws.com', 'us-east-1'],
  ];
  for (const [queueUrl, origin, region] of forms) {
    const t = sqsApiTarget({ queueUrl });
    assert.equal([t.endpoint.origin, t.region, t.service, t.credentials], [origin, region, 'sqs', undefined], queueUrl);
  }
  // AWS_REGION wins for signing; the host stays the queue URL's.
  const fips = sqsApiTarget({ queueUrl: 'https://sqs-fips.us-east-2.amazonaws.com/1/q', region: 'us-east-2' });
  assert.equal([fips.endpoint.origin, fips.region], ['https://sqs-fips.us-east-2.amazonaws.com', 'us-east-2']);
  // SQS_ENDPOINT wins over the queue URL's host (and then the region defaults to ElasticMQ's).
  const local = sqsApiTarget({ queueUrl: 'https://sqs.us-east-1.amazonaws.com/1/q', endpoint: 'http://127.0.0.1:29324' });
  assert.equal([local.endpoint.origin, local.region], ['http://127.0.0.1:29324', 'elasticmq']);
  // An AWS host that names no region needs AWS_REGION, said at construction.
  assert.throws(() => sqsApiTarget({ queueUrl: 'https://example.amazonaws.com/1/q' }), /set AWS_REGION/);
  assert.is(sqsApiTarget({ queueUrl: 'https://example.amazonaws.com/1/q', region: 'eu-west-3' }).endpoint.origin, 'https://example.amazonaws.com');
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
    assert.match(String(err), /ReceiveMessage: no complete answer within 300 ms/);
    const aborted = await api.attributes(['QueueArn'], AbortSignal.timeout(50)).then(() => undefined, (e: unknown) => e);
    assert.ok(aborted instanceof Error && /abort/i.test(`${aborted.name} ${aborted.message}`), String(aborted));
  } finally {
    api.destroy();
    await srv.close();
  }
});

/** A server whose every answer `respond` writes; what it wrote is counted, and whether the client hung up first. */
async function hostile(respond: (res: ServerResponse, sent: (n: number) => void) => void): Promise<{ url: string; sentBytes: () => number; cutOff: Promise<boolean>; close: () => Promise<void> }> {
  let sentBytes = 0;
  let cut: (v: boolean) => void = () => {};
  const cutOff = new Promise<boolean>((r) => { cut = r; });
  const s: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.on('close', () => cut(!res.writableFinished));
      respond(res, (n) => { sentBytes += n; });
    });
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, sentBytes: () => sentBytes, cutOff, close: () => new Promise((r) => { s.closeAllConnections(); s.close(() => r()); }) };
}

test('answers of the wrong shape are refused as a whole, naming the problem, never half-used', async () => {
  let body = '';
  const srv = await hostile((res) => res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end(body));
  const api = createSqsQueueApi({ queueUrl: `${srv.url}/000000000000/q` });
  const message = { MessageId: 'm', ReceiptHandle: 'h', Body: '{}' };
  const receives: [string, RegExp][] = [
    ['{"Messages":{}}', /ReceiveMessage: refused the answer: Messages is an object, not an array/],
    ['[null]', /ReceiveMessage: refused the answer: the answer is an array, not a JSON object/],
    ['null', /the answer is null, not a JSON object/],
    ['{"Messages":[null]}', /Messages\[0\] is null, not an object/],
    ['{"Messages":[{"MessageId":"m","ReceiptHandle":"h"}]}', /Messages\[0\]\.Body is missing, not a string/],
    ['{"Messages":[{"MessageId":7,"ReceiptHandle":"h","Body":"{}"}]}', /Messages\[0\]\.MessageId is a number, not a string/],
    [JSON.stringify({ Messages: Array.from({ length: 11 }, () => message) }), /11 messages, asked for at most 10/],
    ['<html>gateway</html>', /ReceiveMessage: refused the answer: the answer is not JSON/],
  ];
  try {
    for (const [answer, problem] of receives) {
      body = answer;
      const err = await outcome(api.receive({ maxMessages: 10, waitTimeSeconds: 0 }));
      assert.instance(err, SqsAnswerError, `${answer}: ${String(err)}`);
      assert.match((err as Error).message, problem);
    }
    body = '{"Successful":"all","Failed":[]}';
    assert.match(String(await outcome(api.deleteBatch([{ Id: '0', ReceiptHandle: 'h' }]))), /DeleteMessageBatch: refused the answer: Successful is a string, not an array/);
    body = '{"Failed":[{"Id":"0","Code":"X"}]}';
    assert.match(String(await outcome(api.deleteBatch([{ Id: '0', ReceiptHandle: 'h' }]))), /Failed\[0\]\.SenderFault is missing, not a boolean/);
    body = '{"Attributes":[1]}';
    assert.match(String(await outcome(api.attributes(['QueueArn']))), /GetQueueAttributes: refused the answer: Attributes is an array, not an object/);
    // The same server answering the protocol's shape is believed.
    body = JSON.stringify({ Messages: [message] });
    assert.equal(await api.receive({ maxMessages: 10, waitTimeSeconds: 0 }), [message]);
  } finally {
    api.destroy();
    await srv.close();
  }
});

test('an answer over the size bound is refused and not read to its end (declared, or streamed without a length)', async () => {
  const HUNDRED_MB = 100 * 1024 * 1024;
  const chunk = Buffer.alloc(64 * 1024, 'a');
  for (const declared of [true, false]) {
    let written = 0;
    const srv = await hostile((res, sent) => {
      const send = (n: number) => { written += n; sent(n); };
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', ...(declared ? { 'content-length': String(HUNDRED_MB) } : {}) });
      res.write('{"Messages":[],"padding":"');
      send(26);
      // Write as fast as the client reads, up to 100 MB, until it hangs up.
      const more = () => {
        while (written < HUNDRED_MB - chunk.length && !res.destroyed) {
          send(chunk.length);
          if (!res.write(chunk)) { res.once('drain', more); return; }
        }
        if (!res.destroyed) res.end();
      };
      more();
    });
    const api = createSqsQueueApi({ queueUrl: `${srv.url}/000000000000/q`, maxAnswerBytes: 1024 * 1024 });
    try {
      const err = await outcome(api.receive({ maxMessages: 10, waitTimeSeconds: 0 }), 60_000);
      assert.instance(err, SqsAnswerError, String(err));
      assert.match((err as Error).message, /over the 1048576 byte bound/);
      assert.ok(await srv.cutOff, 'the client hung up before the answer ended');
      assert.ok(srv.sentBytes() < HUNDRED_MB / 2, `most of the 100 MB never sent (${srv.sentBytes()} bytes)`);
    } finally {
      api.destroy();
      await srv.close();
    }
  }
});

test('a server trickling one byte at a time: the call ends at its deadline, not when the server pleases', async () => {
  const srv = await hostile((res) => {
    res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'content-length': '100000' });
    const drip = setInterval(() => { if (res.destroyed) clearInterval(drip); else res.write(' '); }, 50);
  });
  const api = createSqsQueueApi({ queueUrl: `${srv.url}/000000000000/q`, requestTimeoutMs: 500 });
  try {
    const err = await outcome(api.receive({ maxMessages: 10, waitTimeSeconds: 0 }));
    assert.match(String(err), /ReceiveMessage: no complete answer within 500 ms/);
    assert.ok(await srv.cutOff, 'the client hung up');
  } finally {
    api.destroy();
    await srv.close();
  }
});

test.run();
