// The one error base (errors/base.ts, docs/decisions.md#one-error-base) and the functions that turn a library's
// errors into it: the stage runtime, the retry policy and the outboxes read only `retriable`.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { chainOf, FaultlineError, isRetriable } from '../../errors/base.js';
import { DatabaseError, fromPg, publicDatabaseMessage } from '../../db/errors.js';
import { fromNetwork } from '../../plumbing/network-errors.js';
import { fromKafkajs } from '../../stages/runtime/transport/kafka/errors.js';
import { fromNodemailer } from '../../alarms/send-errors.js';
import { classifyFailure } from '../../stages/runtime/failure.js';
import { TransportClosedError } from '../../stages/runtime/transport/transport.js';

class Sample extends FaultlineError<'SAMPLE'> {
  constructor(retriable: boolean, cause?: unknown) { super('SAMPLE', 'a sample', { retriable, cause }); }
}
const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

test('the base: code, retriable, a standard cause only when given, the class name', () => {
  const root = withCode('read ECONNRESET', 'ECONNRESET');
  const e = new Sample(true, root);
  assert.is(e.code, 'SAMPLE');
  assert.is(e.retriable, true);
  assert.is(e.cause, root);
  assert.is(e.name, 'Sample');
  assert.ok(e instanceof Error);
  assert.not.ok('cause' in new Sample(false), 'no cause property when none was given (ES2022)');
});

test('isRetriable reads ours anywhere in the chain (cause, AggregateError), nothing else', () => {
  assert.is(isRetriable(new Sample(true)), true);
  assert.is(isRetriable(new Sample(false)), false);
  assert.is(isRetriable(new Error('wrapped', { cause: new Sample(true) })), true);
  assert.is(isRetriable(new AggregateError([new Error('x'), new Sample(true)])), true);
  assert.is(isRetriable(Object.assign(new Error('a look-alike'), { retriable: true })), false, 'only our base is read');
  const loop = new Error('loop') as Error & { cause?: unknown };
  loop.cause = loop;
  assert.is(chainOf(loop).length, 1, 'a cycle is walked once');
});

test('pg: away or busy is retriable, a refused value is not; the message and SQLSTATE stay for the dead letter', () => {
  const refused = fromPg(withCode('new row violates check constraint', '23514'))!;
  assert.instance(refused, DatabaseError);
  assert.is(refused.code, 'DATABASE_REFUSED');
  assert.is(refused.retriable, false);
  assert.is(publicDatabaseMessage(refused), 'new row violates check constraint (SQLSTATE 23514)');
  assert.is(fromPg(withCode('terminating connection due to administrator command', '57P01'))!.retriable, true);
  assert.is(fromPg(new Error('Connection terminated unexpectedly'))!.retriable, true);
  assert.is(fromPg(new Error('Cannot use a pool after calling end on the pool'))!.retriable, true);
  assert.is(fromPg(new TypeError('not a database error')), undefined);
  assert.is(fromPg(refused), refused, 'ours stays ours');
});

test('kafkajs, network and nodemailer errors each become ours in one function', () => {
  assert.is(fromKafkajs(new kafkajs.KafkaJSNumberOfRetriesExceeded(new Error('x'), { retryCount: 1, retryTime: 1 }))!.retriable, true, 'an outage though kafkajs calls it non-retriable');
  assert.is(fromKafkajs(new kafkajs.KafkaJSProtocolError({ message: 'too large', type: 'MESSAGE_TOO_LARGE', code: 10, retriable: false } as never))!.retriable, false);
  assert.is(fromKafkajs(new Error('not kafkajs')), undefined);
  assert.is(fromNetwork(withCode('connect ECONNREFUSED', 'ECONNREFUSED'))!.code, 'NETWORK_UNAVAILABLE');
  assert.is(fromNetwork(Object.assign(new Error('busy'), { statusCode: 429 }))!.retriable, true);
  assert.is(fromNetwork(Object.assign(new Error('bad'), { status: 400 }))!.retriable, false);
  assert.is(fromNetwork(Object.assign(new Error('fine'), { status: 200 })), undefined);
  assert.is(fromNodemailer(Object.assign(new Error('x'), { responseCode: 550 })).retriable, false);
  assert.is(fromNodemailer(Object.assign(new Error('x'), { responseCode: 451 })).retriable, true);
  assert.is(fromNodemailer(withCode('x', 'ESOCKET')).code, 'SMTP_FAILED');
});

test('the runtime reads retriable: ours decide, a closing transport is an outage, a look-alike flag is not', () => {
  assert.is(classifyFailure(new Sample(true)), 'outage');
  assert.is(classifyFailure(new Sample(false)), 'record');
  assert.is(classifyFailure(new TransportClosedError()), 'outage');
  assert.is(classifyFailure(new Error('transport closed!')), 'record', 'a message is no longer read');
});

test.run();
