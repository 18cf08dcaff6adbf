import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Temporal } from 'temporal-polyfill';
import { formatDisplayTime, formatDisplayTimeOrNull, formatDisplayTimeTemporal, isTimeZone } from '../../domain/display-time.js';

const at = (iso: string) => Date.parse(iso);

// [zone, UTC instant, expected display]; DST days of 2026: Chicago springs forward 03-08 02:00 CST and falls
// back 11-01 02:00 CDT; Sydney falls back 04-05 03:00 AEDT and springs forward 10-04 02:00 AEST.
const rows: [string, string, string][] = [
  ['UTC', '2026-11-22T15:04:00Z', '2026-Nov-22 03:04 PM'],
  ['America/Chicago', '2026-11-22T21:04:59Z', '2026-Nov-22 03:04 PM'],
  ['America/Chicago', '2026-11-20T14:00:00Z', '2026-Nov-20 08:00 AM'],
  ['America/Chicago', '2026-07-01T05:00:00Z', '2026-Jul-01 12:00 AM'],
  ['America/Chicago', '2026-07-01T17:00:00Z', '2026-Jul-01 12:00 PM'],
  // fall back: 01:30 happens twice, first CDT (-5) then CST (-6)
  ['America/Chicago', '2026-11-01T06:30:00Z', '2026-Nov-01 01:30 AM'],
  ['America/Chicago', '2026-11-01T07:30:00Z', '2026-Nov-01 01:30 AM'],
  ['America/Chicago', '2026-11-01T08:30:00Z', '2026-Nov-01 02:30 AM'],
  // spring forward: 01:59 CST, then the next minute is 03:00 CDT
  ['America/Chicago', '2026-03-08T07:59:00Z', '2026-Mar-08 01:59 AM'],
  ['America/Chicago', '2026-03-08T08:00:00Z', '2026-Mar-08 03:00 AM'],
  ['Australia/Sydney', '2026-11-20T14:00:00Z', '2026-Nov-21 01:00 AM'],
  ['Australia/Sydney', '2026-06-30T14:00:00Z', '2026-Jul-01 12:00 AM'],
  // spring forward on 2026-10-04: 01:59 AEST (+10), then 03:00 AEDT (+11)
  ['Australia/Sydney', '2026-10-03T15:59:00Z', '2026-Oct-04 01:59 AM'],
  ['Australia/Sydney', '2026-10-03T16:00:00Z', '2026-Oct-04 03:00 AM'],
  // fall back on 2026-04-05: 02:30 twice
  ['Australia/Sydney', '2026-04-04T15:30:00Z', '2026-Apr-05 02:30 AM'],
  ['Australia/Sydney', '2026-04-04T16:30:00Z', '2026-Apr-05 02:30 AM'],
  ['Australia/Sydney', '2026-04-05T06:15:00Z', '2026-Apr-05 04:15 PM'],
];

for (const [zone, iso, expected] of rows) {
  test(`${zone} ${iso} -> ${expected}`, () => {
    assert.is(formatDisplayTime(at(iso), zone), expected);
  });
}

for (const [zone, iso] of rows) {
  test(`the Temporal reference agrees: ${zone} ${iso}`, () => assert.is(formatDisplayTimeTemporal(at(iso), zone), formatDisplayTime(at(iso), zone)));
}

test('exactly at a transition instant, and a millisecond before it', () => {
  // Chicago falls back at 2026-11-01T07:00:00Z (02:00 CDT -> 01:00 CST)
  const t = Date.parse('2026-11-01T07:00:00Z');
  assert.is(formatDisplayTime(t, 'America/Chicago'), '2026-Nov-01 01:00 AM');
  assert.is(formatDisplayTime(t - 1, 'America/Chicago'), '2026-Nov-01 01:59 AM');
  assert.is(formatDisplayTime(t - 60 * 60_000, 'America/Chicago'), '2026-Nov-01 01:00 AM');
});

test('the cached-offset fast path equals Temporal through 2026 and around 1970 and 2038', () => {
  const zones = ['America/Chicago', 'Australia/Sydney', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'America/St_Johns', 'UTC'];
  const spans: [number, number][] = [[Date.UTC(2026, 0, 1), Date.UTC(2027, 0, 1)], [Date.UTC(1969, 11, 1), Date.UTC(1970, 1, 1)], [Date.UTC(2038, 0, 1), Date.UTC(2038, 3, 1)]];
  let checked = 0;
  for (const zone of zones) {
    for (const [from, to] of spans) {
      for (let ms = from; ms < to; ms += 29 * 60_000 + 13_000) {
        const fast = formatDisplayTime(ms, zone);
        if (fast !== formatDisplayTimeTemporal(ms, zone)) assert.unreachable(`${zone} ${new Date(ms).toISOString()}: ${fast} vs ${formatDisplayTimeTemporal(ms, zone)}`);
        checked++;
      }
    }
  }
  assert.ok(checked > 100_000);
});

test('null stays null; Date is accepted', () => {
  assert.is(formatDisplayTimeOrNull(null, 'UTC'), null);
  assert.is(formatDisplayTimeOrNull(new Date('2026-01-05T00:07:00Z'), 'UTC'), '2026-Jan-05 12:07 AM');
});

test('isTimeZone knows IANA zones and refuses others', () => {
  for (const z of ['UTC', 'America/Chicago', 'Australia/Sydney', '+05:30']) assert.ok(isTimeZone(z), z);
  for (const z of ['', 'Mars/Olympus', 'America/Chicag0']) assert.not.ok(isTimeZone(z), z);
});

test('isTimeZone asks Temporal once per zone (the memo), and stays right past its bound', () => {
  assert.ok(isTimeZone('Asia/Kathmandu'));
  assert.not.ok(isTimeZone('Mars/Base'));
  const real = Temporal.Instant.fromEpochMilliseconds;
  let asked = 0;
  Temporal.Instant.fromEpochMilliseconds = (ms: number) => { asked++; return real.call(Temporal.Instant, ms); };
  try {
    assert.ok(isTimeZone('Asia/Kathmandu'));
    assert.not.ok(isTimeZone('Mars/Base'));
    assert.is(asked, 0, 'both answered from the memo');
    for (let i = 0; i < 1_500; i++) assert.not.ok(isTimeZone(`Nowhere/Z${i}`));
    assert.ok(isTimeZone('Asia/Kathmandu'), 'after the memo started again');
    assert.not.ok(isTimeZone('Mars/Base'));
  } finally {
    Temporal.Instant.fromEpochMilliseconds = real;
  }
});

test.run();
