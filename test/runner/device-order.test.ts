// The order rule the resilience suites assert (test/helpers/device-order.ts): stored order equals raw-topic order
// per device. It must fail when the pipeline reorders, and must not fail when SQS handed the bridge two close
// check-ins of a device the other way round (they then lie on the raw topic that way round).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { storedOutOfRawOrder, type CheckInKey } from '../helpers/device-order.js';

const T = Date.UTC(2026, 10, 20);
const a = (minute: number): CheckInKey => ({ imei: '356000000000001', date: T + minute * 60_000 });
const b = (minute: number): CheckInKey => ({ imei: '356000000000002', date: T + minute * 60_000 });

test('SQS reordered two close check-ins: on the raw topic and stored that way round, which is no difference', () => {
  // Sent a1, a2; the bridge's pollers published a2 first. Dates now run backwards in storage: that is allowed.
  assert.equal(storedOutOfRawOrder([b(1), a(2), a(1), b(2)], [a(2), b(1), a(1), b(2)]), []);
});

test('the pipeline stored a device\'s check-ins in another order than its raw records: named, with both orders', () => {
  assert.equal(storedOutOfRawOrder([a(1), a(2), a(3), b(1)], [a(1), b(1), a(3), a(2)]), [
    '356000000000001: stored 2026-11-20T00:01:00.000Z, 2026-11-20T00:03:00.000Z, 2026-11-20T00:02:00.000Z; '
    + 'on the raw topic 2026-11-20T00:01:00.000Z, 2026-11-20T00:02:00.000Z, 2026-11-20T00:03:00.000Z',
  ]);
  // The same reordering where dates and raw order disagree (SQS reordered first): still caught.
  assert.equal(storedOutOfRawOrder([a(2), a(1)], [a(1), a(2)]).length, 1);
});

test('a record published twice counts at its first copy; one dead-lettered (never stored) is left out', () => {
  assert.equal(storedOutOfRawOrder([a(1), a(2), a(1), a(3)], [a(1), a(2), a(3)]), [], 'the later copy of a1 changed nothing');
  assert.equal(storedOutOfRawOrder([a(1), a(2), a(1), a(3)], [a(2), a(1), a(3)]).length, 1, 'stored at the later copy is a reorder');
  assert.equal(storedOutOfRawOrder([a(1), a(2), a(3)], [a(1), a(3)]), [], 'a2 dead-lettered');
});

test('a stored check-in the raw topic never had is a difference', () => {
  assert.equal(storedOutOfRawOrder([a(1)], [a(1), a(2)]).length, 1);
  assert.equal(storedOutOfRawOrder([], [b(1)]).length, 1);
});

test.run();
