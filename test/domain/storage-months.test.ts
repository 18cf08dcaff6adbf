import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addMonths, expired, firstKeptMonth, isMonth, mayCreateMonth, monthBounds, monthOfMs, monthOfTimestamp, monthsAhead, ON_DEMAND_MONTHS_BACK } from '../../domain/storage-months.js';
import { microsToIso } from '../../storage/archive.js';

test('addMonths across year ends, both ways', () => {
  // [month, n, expected]
  const rows: [string, number, string][] = [
    ['2026-11', 0, '2026-11'], ['2026-11', 1, '2026-12'], ['2026-11', 2, '2027-01'], ['2026-01', -1, '2025-12'],
    ['2026-03', -15, '2024-12'], ['2026-12', 13, '2028-01'], ['0001-01', -1, '0000-12'],
  ];
  for (const [m, n, want] of rows) assert.is(addMonths(m, n), want, `${m} ${n}`);
});

test('months of timestamps and instants are UTC months', () => {
  assert.is(monthOfTimestamp('2026-11-30T23:59:59.999Z'), '2026-11');
  assert.is(monthOfMs(Date.parse('2026-12-01T00:00:00.000Z')), '2026-12');
  assert.is(monthOfMs(Date.parse('2026-11-30T23:59:59.999Z')), '2026-11');
  assert.equal(monthBounds('2024-02'), { fromMs: Date.parse('2024-02-01T00:00:00Z'), untilMs: Date.parse('2024-03-01T00:00:00Z') });
  assert.equal(monthsAhead(Date.parse('2026-11-24T10:00:00Z'), 3), ['2026-11', '2026-12', '2027-01', '2027-02']);
  for (const ok of ['2026-01', '1999-12']) assert.ok(isMonth(ok), ok);
  for (const bad of ['2026-13', '2026-00', '2026-1', '26-01', '2026-01-01']) assert.not.ok(isMonth(bad), bad);
});

test('retention keeps the current month and RetentionMonths whole months before it; null keeps everything', () => {
  const now = Date.parse('2026-11-24T10:00:00Z');
  // [RetentionMonths, month, expired?]
  const rows: [number | null, string, boolean][] = [
    [null, '1990-01', false],
    [12, '2025-11', false], [12, '2025-10', true], [12, '2026-11', false],
    [1, '2026-10', false], [1, '2026-09', true],
    [6, '2026-05', false], [6, '2026-04', true],
  ];
  for (const [months, month, want] of rows) assert.is(expired(month, firstKeptMonth(months, now)), want, `${months} ${month}`);
});

test('partitions made from device data: 24 months back to the months kept ahead, nothing further', () => {
  const now = Date.parse('2026-11-25T12:00:00Z');
  assert.is(ON_DEMAND_MONTHS_BACK, 24);
  const rows: [string, boolean][] = [
    ['2026-11', true], ['2027-02', true], ['2027-03', false], ['2024-11', true], ['2024-10', false],
    ['2090-05', false], ['2003-07', false], ['2026-13', false], ['junk', false],
  ];
  for (const [month, want] of rows) assert.is(mayCreateMonth(month, now, 3), want, month);
});

test('microseconds since the epoch print exactly, before and after 1970', () => {
  assert.is(microsToIso(0n), '1970-01-01T00:00:00.000000Z');
  assert.is(microsToIso(1795516405651123n), '2026-11-24T10:33:25.651123Z');
  assert.is(microsToIso(-1n), '1969-12-31T23:59:59.999999Z');
  assert.is(microsToIso(-1_000_000n), '1969-12-31T23:59:59.000000Z');
});

test.run();
