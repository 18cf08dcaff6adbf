// The rule that tells an outage (wait, however long) from a poison record (narrow down, retry a few times,
// dead-letter): stages/runtime/failure.ts. Errors are built the way pg, kafkajs, undici and our registry client
// build them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { RegistryError } from '../../schemas/registry-errors.js';
import { afterRecordFailure, blame, blamedStage, classifyFailure } from '../../stages/runtime/failure.js';

// kafkajs's ESM build exports its error classes only on the default export.
const { KafkaJSConnectionError, KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError } = kafkajs;
const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

test('outages: database, broker, registry and network errors, also when wrapped', () => {
  const outages: [string, unknown][] = [
    ['pg refused', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['pg reset', withCode('read ECONNRESET', 'ECONNRESET')],
    ['pg admin shutdown', withCode('terminating connection due to administrator command', '57P01')],
    ['pg starting up', withCode('the database system is starting up', '57P03')],
    ['pg too many connections', withCode('sorry, too many clients already', '53300')],
    ['pg deadlock', withCode('deadlock detected', '40P01')],
    ['pg dropped connection', new Error('Connection terminated unexpectedly')],
    ['pg pool timeout', new Error('timeout exceeded when trying to connect')],
    ['kafkajs connection', new KafkaJSConnectionError('Connection error: connect ECONNREFUSED')],
    ['kafkajs retries exceeded', new KafkaJSNumberOfRetriesExceeded(new KafkaJSConnectionError('Connection timeout'), { retryCount: 8, retryTime: 10_000 })],
    ['kafkajs not leader', new KafkaJSProtocolError({ message: 'This server is not the leader for that topic-partition', type: 'NOT_LEADER_FOR_PARTITION', code: 6, retriable: true } as never)],
    ['registry away', new RegistryError('REGISTRY_UNAVAILABLE')],
    ['registry 503', Object.assign(new Error('Service Unavailable'), { status: 503 })],
    ['fetch failed', new TypeError('fetch failed', { cause: withCode('connect ECONNREFUSED', 'ECONNREFUSED') })],
    ['undici timeout', new TypeError('fetch failed', { cause: withCode('Connect Timeout Error', 'UND_ERR_CONNECT_TIMEOUT') })],
    ['abort timeout', new DOMException('The operation was aborted due to timeout', 'TimeoutError')],
    ['aggregate', new AggregateError([new Error('x'), withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], 'all failed')],
    ['wrapped by a handler', new Error('persist failed', { cause: withCode('read ECONNRESET', 'ECONNRESET') })],
  ];
  for (const [what, err] of outages) assert.is(classifyFailure(err), 'outage', what);
});

test('record failures: bugs, unexpected values, constraints and non-retriable broker answers', () => {
  const records: [string, unknown][] = [
    ['TypeError', new TypeError("Cannot read properties of undefined (reading 'length')")],
    ['RangeError', new RangeError('Invalid time value')],
    ['plain Error', new Error('unexpected model')],
    ['a string', 'boom'],
    ['undefined', undefined],
    ['pg check violation', withCode('new row violates check constraint', '23514')],
    ['pg invalid text', withCode('invalid input syntax for type integer', '22P02')],
    ['kafkajs message too large', new KafkaJSProtocolError({ message: 'The request included a message larger than the max message size', type: 'MESSAGE_TOO_LARGE', code: 10, retriable: false } as never)],
    ['registry says the value does not fit', new RegistryError('VALUE_INVALID')],
    ['HTTP 400', Object.assign(new Error('Bad Request'), { status: 400 })],
  ];
  for (const [what, err] of records) assert.is(classifyFailure(err), 'record', what);
});

test('an isolated record: retried below the bound, dead-lettered at it only while its dependencies answer; outages always wait', () => {
  assert.is(afterRecordFailure('record', 1, 5, true), 'retry');
  assert.is(afterRecordFailure('record', 4, 5, true), 'retry');
  assert.is(afterRecordFailure('record', 5, 5, true), 'dead-letter');
  assert.is(afterRecordFailure('record', 5, 5, false), 'wait', 'an unforeseen error during an outage costs no record');
  assert.is(afterRecordFailure('record', 1, 1, true), 'dead-letter', 'MAX_RECORD_ATTEMPTS=1: the first failure of the isolated record');
  assert.is(afterRecordFailure('outage', 1, 5, true), 'wait');
  assert.is(afterRecordFailure('outage', 500, 5, true), 'wait', 'an hour of outage dead-letters nothing');
});

test('blame: the first stage named keeps it (the inner stage of a chain, not the segment)', () => {
  const err = new Error('x');
  assert.is(blamedStage(err), undefined);
  blame(err, 'persist');
  blame(err, 'enrich..notify');
  assert.is(blamedStage(err), 'persist');
  blame('a string', 'persist');
  assert.is(blamedStage('a string'), undefined);
});

test.run();
