import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Temporal } from 'temporal-polyfill';
import { epochMs, formatUtc, normaliseUtc, parseTimestamp, shiftUtc } from '../../domain/utc-timestamp.js';

// [input, policy, normalised or null]
const rows: [string, 'reject' | 'utc', string | null][] = [
  ['2026-11-20T14:00:00Z', 'reject', '2026-11-20T14:00:00.000Z'],
  ['2026-11-20T14:00:00.5Z', 'reject', '2026-11-20T14:00:00.500Z'],
  ['2026-11-20T14:00:00.123456789Z', 'reject', '2026-11-20T14:00:00.123Z'],
  ['2026-11-20T16:00:00+02:00', 'reject', '2026-11-20T14:00:00.000Z'],
  ['2026-11-20T23:30:00-10:00', 'reject', '2026-11-21T09:30:00.000Z'],
  ['2026-11-20 14:00:00Z', 'reject', '2026-11-20T14:00:00.000Z'],
  ['2026-11-20T14:00:00', 'reject', null],
  ['2026-11-20T14:00:00', 'utc', '2026-11-20T14:00:00.000Z'],
  ['2026-11-20', 'reject', null],
  ['2026-11-20', 'utc', null],
  ['2026-02-30T00:00:00Z', 'reject', null],
  ['2028-02-29T23:59:59Z', 'reject', '2028-02-29T23:59:59.000Z'],
  ['2026-11-31T00:00:00Z', 'reject', null],
  ['2026-11-20T24:00:00Z', 'reject', null],
  ['2026-11-20T23:60:00Z', 'reject', null],
  ['2026-12-31T23:59:59.999Z', 'reject', '2026-12-31T23:59:59.999Z'],
  ['yesterday', 'utc', null],
  ['', 'reject', null],
];
for (const [input, policy, expected] of rows) {
  test(`parseTimestamp(${JSON.stringify(input)}, ${policy})`, () => {
    const instant = parseTimestamp(input, policy);
    assert.is(instant ? formatUtc(instant) : null, expected);
  });
}

test('formatUtc always has milliseconds, also for years that need more than four digits', () => {
  assert.is(formatUtc(Temporal.Instant.fromEpochMilliseconds(0)), '1970-01-01T00:00:00.000Z');
  assert.is(formatUtc(Temporal.Instant.fromEpochMilliseconds(-1)), '1969-12-31T23:59:59.999Z');
  assert.is(formatUtc(Temporal.Instant.from('0000-01-01T00:00:00Z')), '0000-01-01T00:00:00.000Z');
  const far = Temporal.Instant.from('+010000-01-01T00:00:00Z');
  assert.is(formatUtc(far), far.toString({ fractionalSecondDigits: 3 }));
});

test('epochMs, normaliseUtc, shiftUtc', () => {
  assert.is(epochMs('1970-01-01T00:00:01Z'), 1000);
  assert.is(normaliseUtc('2026-11-20T15:00:00+01:00'), '2026-11-20T14:00:00.000Z');
  assert.is(shiftUtc('2026-11-20T14:25:00Z', -30_000), '2026-11-20T14:24:30.000Z');
  assert.is(shiftUtc('2026-11-21T00:00:10.000Z', -30_000), '2026-11-20T23:59:40.000Z');
  assert.throws(() => epochMs('not a time'), /not an ISO 8601 timestamp/);
});

test.run();
