// `faultline rejected`'s pure parts: what a dead letter is sent again as, and --since.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseSince, resubmission } from '../../cli/commands/rejected.js';

test('a queue message (no topic, or fi.raw.v1) goes to fi.raw.v1 as a new raw message with its body unchanged', () => {
  for (const topic of [null, 'fi.raw.v1']) {
    const out = resubmission({ id: 7, imei: '861234567890123', body: '{"device_data":{}}', topic }, 1000);
    assert.equal(out, { topic: 'fi.raw.v1', key: '861234567890123', value: { messageId: 'resubmit-7-1000', source: 'resubmit', receivedAt: 1000, imei: '861234567890123', body: '{"device_data":{}}' } });
  }
});

test('a poison record read from a later topic goes back to that topic with its value, keyed by the device', () => {
  const value = { messageId: 'm1', source: 'sqs', receivedAt: 5, ActualOngoingFault: 1 };
  assert.equal(resubmission({ id: 8, imei: '861234567890123', body: JSON.stringify(value), topic: 'fi.computed.v1' }), { topic: 'fi.computed.v1', key: '861234567890123', value });
});

test('--since: an ISO time or an age; anything else is refused with the forms named', () => {
  const now = Date.UTC(2026, 10, 25, 12);
  assert.is(parseSince('2026-11-25T10:00:00Z', now).toISOString(), '2026-11-25T10:00:00.000Z');
  assert.is(parseSince('30m', now).toISOString(), '2026-11-25T11:30:00.000Z');
  assert.is(parseSince('2h', now).toISOString(), '2026-11-25T10:00:00.000Z');
  assert.is(parseSince('1d', now).toISOString(), '2026-11-24T12:00:00.000Z');
  assert.throws(() => parseSince('yesterday', now), /neither an ISO 8601 time nor an age like 30m, 12h or 7d/);
});

test.run();
