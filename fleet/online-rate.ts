// Online rates (issue 44 point 2; docs/decisions.md#device-health-assessment): check-ins received against those
// expected over the last 7 and 30 whole UTC days. Expected comes from the one rule, expectedPerDay
// (domain/checkin-clock.ts), at the interval the day's row kept, else the device's learned interval now. Pure.
import { expectedPerDay } from '../domain/checkin-clock.js';
import { addDays, dayStartMs, DAY_MS } from './days.js';

export interface OnlineDay { day: string; received: number; intervalS: number | null }

export interface OnlineCounts { expected: number; received: number }

/**
 * Over the `length` whole days before `today`, from the later of the device's first day and `from` (so a new
 * device is not counted silent before it existed). A day without a row (silent) expects its share at the device's
 * current interval; a day whose interval is unknown (too little history) expects what it received: nothing is
 * known missing.
 */
export function onlineCounts(days: readonly OnlineDay[], today: string, length: number,
  o: { firstDay: string | null; from: string | null; clockIntervalS: number | null; floorS: number }): OnlineCounts {
  if (o.firstDay === null) return { expected: 0, received: 0 };
  const windowStart = addDays(today, -length);
  const start = [windowStart, o.firstDay, o.from ?? windowStart].reduce((a, b) => (a > b ? a : b));
  if (start >= today) return { expected: 0, received: 0 };
  let expected = 0, received = 0, withRow = 0;
  for (const d of days) {
    if (d.day < start || d.day >= today) continue;
    withRow++;
    received += d.received;
    expected += expectedPerDay(d.intervalS ?? o.clockIntervalS, o.floorS) ?? d.received;
  }
  // The silent days (no row) of the window: their share at the current interval, or nothing when it is unknown.
  const silent = Math.round((dayStartMs(today) - dayStartMs(start)) / DAY_MS) - withRow;
  expected += silent * (expectedPerDay(o.clockIntervalS, o.floorS) ?? 0);
  return { expected, received };
}
