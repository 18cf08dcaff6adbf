// The colour bands of the fleet view's day strip (portal/src/views/fleet/day-bands.ts): a day's band by the share
// of its expected check-ins missed, and a legend entry with its own colour for every band.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BANDS, dayBand, FEW_MISSED_SHARE } from '../../portal/src/views/fleet/day-bands.js';

const day = (expected: number | null, received: number) => ({ expected, received, missed: expected === null ? null : Math.max(expected - received, 0) });

test('nothing expected: its own band, whatever arrived', () => {
  assert.is(dayBand(day(null, 0)), 'none-expected');
  assert.is(dayBand(day(null, 5)), 'none-expected');
  assert.is(dayBand(day(0, 0)), 'none-expected');
});

test('by the share missed: none, up to a quarter, more, all', () => {
  assert.is(dayBand(day(8, 8)), 'all-received');
  assert.is(dayBand(day(8, 9)), 'all-received');
  assert.is(dayBand(day(8, 7)), 'few-missed');
  assert.is(dayBand(day(8, 8 - 8 * FEW_MISSED_SHARE)), 'few-missed');
  assert.is(dayBand(day(8, 5)), 'many-missed');
  assert.is(dayBand(day(8, 1)), 'many-missed');
  assert.is(dayBand(day(8, 0)), 'all-missed');
  assert.is(dayBand(day(288, 287)), 'few-missed');
});

test('the legend lists every band once, each with a colour of its own', () => {
  const bands = BANDS.map((b) => b.band);
  assert.equal([...new Set(bands)].sort(), ['all-missed', 'all-received', 'few-missed', 'many-missed', 'none-expected']);
  assert.is(new Set(BANDS.map((b) => b.colour)).size, BANDS.length);
});

test.run();
