// An error class from its capability's code table (errors/code-table.ts, docs/decisions.md#error-classes-from-their-code-table):
// the table decides `retriable` unless the error says otherwise, the message falls back to the table's, and
// each capability's class built on it answers for every code of its table as its table says.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FaultlineError } from '../../errors/base.js';
import { CodedError, type CodeEntry } from '../../errors/code-table.js';
import { ALARM_SEND_ERRORS, AlarmSendError } from '../../alarms/send-errors.js';
import { DATABASE_ERRORS, DatabaseError } from '../../db/errors.js';
import { REJECTION_CODES, RejectionError } from '../../domain/errors.js';
import { DELIVERY_ERRORS, DeliveryError } from '../../multispeak/delivery/errors.js';
import { HTTP_FAILURES, HttpSendError } from '../../outbox/http-post.js';
import { NETWORK_ERRORS, NetworkError } from '../../plumbing/network-errors.js';
import { REGISTRY_ERROR_CODES, RegistryError } from '../../schemas/registry-errors.js';
import { SQS_SINK_ERRORS, SqsSinkError } from '../../simulator/sqs-sink.js';
import { BROKER_ERRORS, BrokerError } from '../../stages/runtime/transport/kafka/errors.js';

const SAMPLE = {
  AWAY: { retriable: true, meaning: 'the peer is away' },
  BAD: { retriable: false, meaning: 'the input is bad', message: 'The input is bad.' },
} as const;
class SampleError extends CodedError(SAMPLE) {}

test('the table decides retriable; the error may say otherwise; the cause is the standard one', () => {
  const root = new Error('ECONNRESET');
  const away = new SampleError('AWAY', 'read ECONNRESET', { cause: root });
  assert.instance(away, FaultlineError);
  assert.instance(away, Error);
  assert.is(away.name, 'SampleError');
  assert.is(away.code, 'AWAY');
  assert.is(away.message, 'read ECONNRESET');
  assert.is(away.retriable, true);
  assert.is(away.cause, root);
  assert.is(new SampleError('BAD', 'x').retriable, false);
  assert.is(new SampleError('AWAY', 'x', { retriable: false }).retriable, false, 'the error\'s own answer wins');
  assert.not.ok('cause' in new SampleError('BAD'), 'no cause property when none was given');
});

test('the message: the caller\'s, else the table\'s message, else what the code means', () => {
  assert.is(new SampleError('BAD', 'field x is missing').message, 'field x is missing');
  assert.is(new SampleError('BAD').message, 'The input is bad.');
  assert.is(new SampleError('AWAY').message, 'the peer is away');
});

/** Each capability's class, made for `code` the way its callers make it. */
const CLASSES: [string, Readonly<Record<string, CodeEntry>>, (code: never) => FaultlineError][] = [
  ['BrokerError', BROKER_ERRORS, (c) => new BrokerError(c, 'm')],
  ['SqsSinkError', SQS_SINK_ERRORS, (c) => new SqsSinkError(c, 'm')],
  ['DeliveryError', DELIVERY_ERRORS, (c) => new DeliveryError(c, 'm')],
  ['AlarmSendError', ALARM_SEND_ERRORS, (c) => new AlarmSendError(c, 'm')],
  ['NetworkError', NETWORK_ERRORS, (c) => new NetworkError(c, 'm')],
  ['DatabaseError', DATABASE_ERRORS, (c) => new DatabaseError(c, 'm', undefined, undefined)],
  ['HttpSendError', HTTP_FAILURES, (c) => new HttpSendError(c, 'm')],
  ['RegistryError', REGISTRY_ERROR_CODES, (c) => new RegistryError(c)],
  ['RejectionError', REJECTION_CODES, (c) => new RejectionError(c)],
];

test('every capability built on a table answers each of its codes as the table says: code, retriable, name, message', () => {
  for (const [name, table, make] of CLASSES) {
    for (const [code, entry] of Object.entries(table)) {
      const e = make(code as never);
      assert.is(e.name, name);
      assert.is(e.code, code);
      assert.is(e.retriable, entry.retriable, `${name} ${code}`);
      assert.is(e.message, entry.message ?? 'm', `${name} ${code}: the caller's message, or the table's default`);
    }
  }
});

test('the extras stay the class\'s own: a SQLSTATE, a registry status, a rejection\'s status and IMEI', () => {
  const db = new DatabaseError('DATABASE_REFUSED', 'violates check constraint', '23514', new Error('pg'));
  assert.is(db.sqlState, '23514');
  assert.is((db.cause as Error).message, 'pg');
  const reg = new RegistryError('SCHEMA_INCOMPATIBLE', undefined, { status: 409, errorCode: 409 });
  assert.equal([reg.status, reg.errorCode, reg.message], [409, 409, REGISTRY_ERROR_CODES.SCHEMA_INCOMPATIBLE.message]);
  const rej = new RejectionError('UNKNOWN_DEVICE', 'no such IMEI', { imei: '356000000000001' });
  assert.equal([rej.status, rej.imei, rej.message, rej.retriable], [404, '356000000000001', 'no such IMEI', false]);
});

test.run();
