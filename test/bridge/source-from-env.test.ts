// Which source a process runs, from its environment.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_INBOX_DIR, sourceFromEnv } from '../../stages/bridge/source-from-env.js';
import { localAvroCodec } from '../../stages/runtime/codec.js';
import { memoryTransport } from '../../stages/runtime/transport/memory.js';

const transport = memoryTransport({ codec: localAvroCodec() });

test('SQS_QUEUE_URL selects the SQS source', () => {
  const { kind, source } = sourceFromEnv({ transport, env: { SQS_QUEUE_URL: 'http://127.0.0.1:29324/000000000000/device-messages', SQS_POLLERS: '4' } });
  assert.is(kind, 'sqs');
  assert.equal(source.stats(), { received: 0, published: 0, deadLettered: 0, deleted: 0, errors: 0 });
});

test('without SQS_QUEUE_URL: the spool inbox', () => {
  assert.is(sourceFromEnv({ transport, env: {} }).kind, 'spool');
  assert.is(sourceFromEnv({ transport, env: { SQS_QUEUE_URL: '', INBOX_DIR: '/tmp/x' } }).kind, 'spool');
  assert.is(DEFAULT_INBOX_DIR, '.data/inbox');
});

test('bad numbers are refused with the variable named', () => {
  const queue = { SQS_QUEUE_URL: 'http://127.0.0.1:29324/0/q' };
  assert.throws(() => sourceFromEnv({ transport, env: { ...queue, SQS_POLLERS: 'two' } }), /SQS_POLLERS must be a positive integer, got "two"/);
  assert.throws(() => sourceFromEnv({ transport, env: { ...queue, SQS_POLLERS: '0' } }), /SQS_POLLERS/);
  assert.throws(() => sourceFromEnv({ transport, env: { MAX_MESSAGE_BYTES: '-1' } }), /MAX_MESSAGE_BYTES/);
  assert.throws(() => sourceFromEnv({ transport, env: { ...queue, SQS_WAIT_SECONDS: '30' } }), /waitTimeSeconds/);
});

test.run();
