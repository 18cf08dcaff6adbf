// Which source a process runs, from its settings (the queue and the bridge's limits, read in config/settings.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadSettings } from '../../config/settings.js';
import { sourceFromSettings } from '../../stages/bridge/source-from-settings.js';
import { localAvroCodec } from '../../stages/runtime/codec.js';
import { memoryTransport } from '../../stages/runtime/transport/memory.js';

const transport = memoryTransport({ codec: localAvroCodec() });
const fromEnv = (env: Record<string, string>) => {
  const { queue, bridge } = loadSettings(env);
  return sourceFromSettings({ transport, queue, bridge });
};

test('SQS_QUEUE_URL selects the SQS source', () => {
  const { kind, source } = fromEnv({ SQS_QUEUE_URL: 'http://127.0.0.1:29324/000000000000/device-messages', SQS_POLLERS: '4' });
  assert.is(kind, 'sqs');
  assert.equal(source.stats(), { received: 0, published: 0, deadLettered: 0, deleted: 0, errors: 0 });
  const queueUrl = 'http://127.0.0.1:29324/0/q';
  assert.equal(loadSettings({ SQS_QUEUE_URL: queueUrl, SQS_ENDPOINT: 'http://127.0.0.1:29324', AWS_REGION: 'eu-west-1' }).queue, { kind: 'sqs', queueUrl, endpoint: 'http://127.0.0.1:29324', region: 'eu-west-1' });
});

test('without SQS_QUEUE_URL: the spool inbox, INBOX_DIR or $DATA_DIR/inbox', () => {
  assert.is(fromEnv({}).kind, 'spool');
  assert.is(fromEnv({ SQS_QUEUE_URL: '', INBOX_DIR: '/tmp/x' }).kind, 'spool');
  assert.equal(loadSettings({ SQS_QUEUE_URL: '', INBOX_DIR: '/tmp/x' }).queue, { kind: 'spool', dir: '/tmp/x' });
  assert.equal(loadSettings({ DATA_DIR: '/tmp/d' }).queue, { kind: 'spool', dir: '/tmp/d/inbox' });
});

test('bad numbers are refused with the variable named', () => {
  const queue = { SQS_QUEUE_URL: 'http://127.0.0.1:29324/0/q' };
  assert.throws(() => fromEnv({ ...queue, SQS_POLLERS: 'two' }), /SQS_POLLERS must be a positive integer, got "two"/);
  assert.throws(() => fromEnv({ ...queue, SQS_POLLERS: '0' }), /SQS_POLLERS/);
  assert.throws(() => fromEnv({ MAX_MESSAGE_BYTES: '-1' }), /MAX_MESSAGE_BYTES/);
  assert.throws(() => fromEnv({ ...queue, SQS_WAIT_SECONDS: '30' }), /SQS_WAIT_SECONDS: "30"/);
});

test.run();
