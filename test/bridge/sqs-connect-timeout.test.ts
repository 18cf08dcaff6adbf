// The bridge's own SQS request path (stages/bridge/sqs-api.ts) against a server that never accepts the connection:
// the call fails at the connect timeout, never a hang. Apart from sqs-api.test.ts because it needs python3 for its
// peer (Node accepts every connection), so `npm test -- --no-infra` can leave it to the full run
// (test/helpers/suite-classes.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { createSqsQueueApi } from '../../stages/bridge/sqs-api.js';
import { outcome } from './call-outcome.js';

test('a server that never accepts the connection: the call fails at the connect timeout, well before its deadline', async () => {
  // A listener with a backlog of 0 that never accepts: once one connection fills its queue, the next connect
  // hangs in SYN_SENT (Node always accepts, hence Python).
  const peer = spawn('python3', ['-u', '-c', 'import socket,sys,time\ns=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(0); print(s.getsockname()[1]); sys.stdin.read()'], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    const port = await new Promise<number>((resolve) => peer.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
    const { connect } = await import('node:net');
    const filler = connect(port, '127.0.0.1');
    await new Promise((r) => filler.once('connect', r));
    const api = createSqsQueueApi({ queueUrl: `http://127.0.0.1:${port}/000000000000/q`, connectTimeoutMs: 300, requestTimeoutMs: 60_000 });
    try {
      const err = await outcome(api.receive({ maxMessages: 10, waitTimeSeconds: 0 }));
      assert.match(String(err), new RegExp(`ReceiveMessage: no connection to 127.0.0.1:${port} within 300 ms`));
    } finally {
      api.destroy();
      filler.destroy();
    }
  } finally {
    peer.kill();
  }
});

test.run();
