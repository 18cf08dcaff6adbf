import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { calendarDayRange, parseCalendarDay } from '../../domain/calendar-days.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

test('parseCalendarDay accepts YYYYMMDD calendar days only', () => {
  assert.is(parseCalendarDay('20261101')?.toString(), '2026-11-01');
  assert.is(parseCalendarDay('20240229')?.toString(), '2024-02-29');
  for (const bad of ['2026-11-01', '2026111', '202611011', '20260230', '20261301', '20261100', 'abcdefgh', '']) {
    assert.is(parseCalendarDay(bad), null, bad);
  }
});

// [zone, from, to, expected fromMs, expected untilMs (exclusive)]
const rows: [string, string, string, string, string][] = [
  ['UTC', '20261120', '20261120', '2026-11-20T00:00:00.000Z', '2026-11-21T00:00:00.000Z'],
  ['America/Chicago', '20261120', '20261120', '2026-11-20T06:00:00.000Z', '2026-11-21T06:00:00.000Z'],
  // the fall-back day lasts 25 hours
  ['America/Chicago', '20261101', '20261101', '2026-11-01T05:00:00.000Z', '2026-11-02T06:00:00.000Z'],
  // the spring-forward day lasts 23 hours
  ['America/Chicago', '20260308', '20260308', '2026-03-08T06:00:00.000Z', '2026-03-09T05:00:00.000Z'],
  ['Australia/Sydney', '20261004', '20261004', '2026-10-03T14:00:00.000Z', '2026-10-04T13:00:00.000Z'],
  ['Australia/Sydney', '20260405', '20260406', '2026-04-04T13:00:00.000Z', '2026-04-06T14:00:00.000Z'],
  // a zone whose DST change is at midnight: the day starts at 01:00
  ['America/Santiago', '20260906', '20260906', '2026-09-06T04:00:00.000Z', '2026-09-07T03:00:00.000Z'],
];
for (const [zone, from, to, fromIso, untilIso] of rows) {
  test(`${zone} ${from}..${to}`, () => {
    const r = calendarDayRange(parseCalendarDay(from), parseCalendarDay(to), zone);
    assert.is(iso(r.fromMs), fromIso);
    assert.is(iso(r.untilMs), untilIso);
  });
}

test('either end may be open', () => {
  assert.equal(calendarDayRange(null, null, 'UTC'), { fromMs: null, untilMs: null });
  assert.is(calendarDayRange(parseCalendarDay('20261120'), null, 'UTC').untilMs, null);
});

test.run();
