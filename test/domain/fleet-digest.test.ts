// The fleet digest's calendar (domain/fleet-digest.ts): which period is due at an instant, per zone.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dueFleetDigest } from '../../domain/fleet-digest.js';

const at = (iso: string) => Date.parse(iso);
const due = (every: 'daily' | 'weekly', iso: string, zone = 'UTC', hour = 7) => {
  const p = dueFleetDigest(every, at(iso), zone, hour);
  return `${p.firstDay}..${p.lastDay}`;
};

test('daily: yesterday from the send hour, the day before until then', () => {
  assert.is(due('daily', '2026-11-28T07:00:00Z'), '2026-11-27..2026-11-27');
  assert.is(due('daily', '2026-11-28T23:59:59Z'), '2026-11-27..2026-11-27');
  assert.is(due('daily', '2026-11-28T06:59:59Z'), '2026-11-26..2026-11-26');
  assert.is(dueFleetDigest('daily', at('2026-11-28T08:00:00Z'), 'UTC', 7).key, 'fleet-digest:daily:2026-11-27');
});

test('weekly: Monday to Sunday, due from the send hour on the Monday after', () => {
  // 2026-11-30 is a Monday.
  assert.is(due('weekly', '2026-11-30T07:00:00Z'), '2026-11-23..2026-11-29');
  assert.is(due('weekly', '2026-11-30T06:00:00Z'), '2026-11-16..2026-11-22');
  assert.is(due('weekly', '2026-12-06T23:00:00Z'), '2026-11-23..2026-11-29', 'the Sunday after still owes the same week');
  assert.is(due('weekly', '2026-12-07T07:00:00Z'), '2026-11-30..2026-12-06');
});

test('the organisation\'s zone decides the day and the hour', () => {
  // 18:30 UTC on the 28th is 07:30 on the 29th in Auckland (UTC+13 in summer): yesterday there is the 28th.
  assert.is(due('daily', '2026-11-28T18:30:00Z', 'Pacific/Auckland'), '2026-11-28..2026-11-28');
  // 11:30 UTC is 06:30 in Chicago (UTC-6): before the send hour, so the 26th is still the latest due.
  assert.is(due('daily', '2026-11-28T12:30:00Z', 'America/Chicago'), '2026-11-26..2026-11-26');
  assert.is(due('daily', '2026-11-28T13:00:00Z', 'America/Chicago'), '2026-11-27..2026-11-27');
});

test('a DST change: the day after a 23-hour day is still one day', () => {
  // Europe/Berlin leaves summer time on 2026-10-25.
  assert.is(due('daily', '2026-10-26T06:00:00Z', 'Europe/Berlin'), '2026-10-25..2026-10-25');
  assert.is(due('daily', '2026-10-26T05:59:00Z', 'Europe/Berlin'), '2026-10-24..2026-10-24');
});

test('when a period became due: the send hour in the zone; on a day the clocks skip it, the first instant after the gap', () => {
  assert.is(new Date(dueFleetDigest('daily', at('2026-11-28T15:00:00Z'), 'America/Chicago', 7).dueAtMs).toISOString(), '2026-11-28T13:00:00.000Z');
  assert.is(new Date(dueFleetDigest('daily', at('2026-11-28T12:00:00Z'), 'America/Chicago', 7).dueAtMs).toISOString(), '2026-11-27T13:00:00.000Z');
  assert.is(new Date(dueFleetDigest('weekly', at('2026-12-02T15:00:00Z'), 'America/Chicago', 7).dueAtMs).toISOString(), '2026-11-30T13:00:00.000Z');
  // Chicago springs forward on 2026-03-08: 02:00 CST is 03:00 CDT (08:00 UTC).
  assert.is(new Date(dueFleetDigest('daily', at('2026-03-08T09:00:00Z'), 'America/Chicago', 2).dueAtMs).toISOString(), '2026-03-08T08:00:00.000Z');
  // and falls back on 2026-11-01: 01:00 happens twice, the first (CDT, 06:00 UTC) is when it is due.
  assert.is(new Date(dueFleetDigest('daily', at('2026-11-01T07:30:00Z'), 'America/Chicago', 1).dueAtMs).toISOString(), '2026-11-01T06:00:00.000Z');
});

test('every instant of a period gives one key: a digest is queued once', () => {
  const keys = new Set<string>();
  for (let m = at('2026-11-28T07:00:00Z'); m < at('2026-11-29T07:00:00Z'); m += 17 * 60_000) keys.add(dueFleetDigest('daily', m, 'UTC', 7).key);
  assert.equal([...keys], ['fleet-digest:daily:2026-11-27']);
});

test.run();
