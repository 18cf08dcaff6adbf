// The signal trend (fleet/signal-trend.ts) and the online rates (fleet/online-rate.ts): medians from the days'
// histograms, a slope from daily medians, the weak and falling thresholds, and received against expected by the one
// rule (expectedPerDay). No servers.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addDays } from '../../fleet/days.js';
import { onlineCounts } from '../../fleet/online-rate.js';
import { FALLING_DB_PER_DAY, MIN_SLOPE_DAYS, signalTrend, WEAK_RSSI_DBM, type SignalDay } from '../../fleet/signal-trend.js';
import type { Histogram } from '../../fleet/health-day.js';

const TODAY = '2026-11-28';
/** The last `n` whole days before TODAY, the i-th (0: oldest) with histogram `h(i)`. */
const lastDays = (n: number, h: (i: number) => Histogram): SignalDay[] => Array.from({ length: n }, (_, i) => ({ day: addDays(TODAY, i - n), rssi: h(i) }));

test('the 7-day median is the exact median of the week\'s readings; today (partial) and older days are not in it', () => {
  const days = [...lastDays(30, (i) => (i < 23 ? [[-78, 5]] : [[-80, 2], [-70, 1]])), { day: TODAY, rssi: [[-110, 50]] as Histogram }];
  const t = signalTrend(days, TODAY);
  // The week: 14 readings of -80 and 7 of -70.
  assert.is(t.median7d, -80);
  assert.is(t.signal, 'ok');
});

test('weak at or under the threshold; weak is said before falling', () => {
  assert.is(signalTrend(lastDays(30, () => [[WEAK_RSSI_DBM, 3]]), TODAY).signal, 'weak');
  assert.is(signalTrend(lastDays(30, () => [[WEAK_RSSI_DBM + 1, 3]]), TODAY).signal, 'ok');
  const fallingToWeak = signalTrend(lastDays(30, (i) => [[-70 - 1.5 * i, 4]]), TODAY);
  assert.ok(fallingToWeak.slope30d! < FALLING_DB_PER_DAY);
  assert.is(fallingToWeak.signal, 'weak');
});

test('falling: the slope of the daily medians at or under the threshold, with enough days', () => {
  const falling = signalTrend(lastDays(30, (i) => [[-62 - 0.6 * i, 1], [-60 - 0.6 * i, 2]]), TODAY);
  assert.ok(Math.abs(falling.slope30d! - -0.6) < 1e-9, String(falling.slope30d));
  assert.is(falling.signal, 'falling');
  assert.is(signalTrend(lastDays(30, (i) => [[-60 - 0.4 * i, 2]]), TODAY).signal, 'ok');
  // Too few daily medians: a slope, but no verdict from it.
  const short = signalTrend(lastDays(MIN_SLOPE_DAYS - 1, (i) => [[-60 - 2 * i, 2]]), TODAY);
  assert.ok(short.slope30d! < FALLING_DB_PER_DAY);
  assert.is(short.signal, 'ok');
});

test('unknown without a reading in the last 7 days; days before `from` (another organisation) are not read', () => {
  const old = lastDays(30, (i) => (i < 20 ? [[-70, 3]] : []));
  assert.equal(signalTrend(old, TODAY).signal, 'unknown');
  const moved = signalTrend(lastDays(30, (i) => (i < 25 ? [[-109, 3]] : [[-70, 3]])), TODAY, addDays(TODAY, -5));
  assert.is(moved.median7d, -70);
  assert.is(moved.slope30d, 0);
});

test('online: received against expectedPerDay of each whole day; a silent day expects its share at the current interval', () => {
  // Interval 3600 s: 24 a day. 7 days: 5 with 24, 1 with 12, one silent.
  const days = Array.from({ length: 7 }, (_, i) => ({ day: addDays(TODAY, i - 7), received: i === 3 ? 12 : 24, intervalS: 3600 as number | null })).filter((_, i) => i !== 5);
  const week = onlineCounts([...days, { day: TODAY, received: 9, intervalS: 3600 }], TODAY, 7, { firstDay: addDays(TODAY, -100), from: null, clockIntervalS: 3600, floorS: 300 });
  assert.equal(week, { expected: 7 * 24, received: 5 * 24 + 12 });
  // The floor applies at read: an interval of 60 s under a 300 s floor expects 288 a day.
  assert.equal(onlineCounts([{ day: addDays(TODAY, -1), received: 300, intervalS: 60 }], TODAY, 7, { firstDay: addDays(TODAY, -1), from: null, clockIntervalS: 60, floorS: 300 }),
    { expected: 288, received: 300 });
});

test('online: nothing expected before the first day or the move; a day without its interval takes the clock\'s, else expects what came', () => {
  const firstDay = addDays(TODAY, -3);
  const days = [{ day: firstDay, received: 2, intervalS: null }, { day: addDays(TODAY, -2), received: 30, intervalS: 3600 }];
  assert.equal(onlineCounts(days, TODAY, 30, { firstDay, from: null, clockIntervalS: 3600, floorS: 300 }), { expected: 24 + 24 + 24, received: 32 });
  assert.equal(onlineCounts(days, TODAY, 30, { firstDay, from: null, clockIntervalS: null, floorS: 300 }), { expected: 2 + 24 + 0, received: 32 });
  assert.equal(onlineCounts(days, TODAY, 30, { firstDay, from: addDays(TODAY, -1), clockIntervalS: 3600, floorS: 300 }), { expected: 24, received: 0 });
  assert.equal(onlineCounts([], TODAY, 30, { firstDay: null, from: null, clockIntervalS: null, floorS: 300 }), { expected: 0, received: 0 });
});

test.run();
