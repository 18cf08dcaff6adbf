// db/timestamptz.ts reads Postgres's timestamptz text by hand; these hold it to postgres-date's answer (pg's own
// reader) on every shape Postgres writes, and to the instant itself.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseTimestamptz, pgTimestamptz as postgresDate } from '../../db/timestamptz.js';

/** A parsed value as a comparable number (NaN for an Invalid Date, so Object.is tells it apart). */
const instant = (v: Date | number | null) => (v === null || typeof v === 'number' ? v : v.getTime());
const same = (text: string) => {
  const ours = instant(parseTimestamptz(text));
  const theirs = instant(postgresDate(text));
  assert.ok(Object.is(ours, theirs), `${text}: ${ours} vs ${theirs}`);
};
const iso = (text: string) => (parseTimestamptz(text) as Date).toISOString();

test('the instant of each shape Postgres writes in ISO DateStyle', () => {
  assert.is(iso('2026-11-29 12:01:34+00'), '2026-11-29T12:01:34.000Z');
  assert.is(iso('2026-11-29 12:01:34.5+01'), '2026-11-29T11:01:34.500Z');
  assert.is(iso('2026-11-29 12:01:34.123456-05'), '2026-11-29T17:01:34.123Z');
  assert.is(iso('2026-11-29 12:01:34.07+05:30'), '2026-11-29T06:31:34.070Z');
  assert.is(iso('1883-11-18 12:00:00-05:50:36'), '1883-11-18T17:50:36.000Z');
  assert.is(iso('2024-02-29 23:59:59.999+00'), '2024-02-29T23:59:59.999Z');
});

test('the same instant as postgres-date for generated instants, fractions and offsets', () => {
  const offsets = ['+00', '-05', '+01', '+05:30', '-03:30', '+05:45', '+14', '-12', '-00:25:21', '+05:53:28'];
  let seed = 42;
  const next = () => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed; };
  const pad = (n: number, w: number) => String(n).padStart(w, '0');
  for (let i = 0; i < 5000; i++) {
    const d = new Date(Date.UTC(1000, 0, 1) + (next() % 2 ** 31) * 30_000 + (next() % 86_400_000));
    const fraction = ['', `.${pad(next() % 10, 1)}`, `.${pad(next() % 100, 2)}`, `.${pad(next() % 1000, 3)}`, `.${pad(next() % 1_000_000, 6)}`][next() % 5]!;
    const text = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)} ${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}${fraction}${offsets[next() % offsets.length]}`;
    same(text);
  }
});

test('what it does not read by hand goes to postgres-date: infinity, BC, years before 1000, other texts', () => {
  for (const text of ['infinity', '-infinity', '0044-03-15 12:00:00+00 BC', '2026-11-29 12:01:34+00 BC', '0099-01-01 00:00:00+00', '0999-12-31 23:59:59+00', '12026-01-01 00:00:00+00']) same(text);
  // Malformed texts: the same (Invalid Date or not) as pg's reader gives.
  for (const text of ['2026-11-29 12:01:34', '2026-11-29 12:01:34.+00', '2026-11-29 12:01:34.1234567+00', '2026-11-29 12:01:34+0', '2026-13-29 12:01:34+00', '2026-11-29T12:01:34Z', '']) same(text);
});

test.run();
