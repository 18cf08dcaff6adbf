// UTC calendar days (YYYY-MM-DD, as device_health_days.day) and the windows the fleet assessment reads.
import { dayOf } from './health-day.js';

export const DAY_MS = 86_400_000;

/** Midnight UTC of a day, in ms. */
export const dayStartMs = (day: string): number => Date.parse(`${day}T00:00:00Z`);

/** The day `n` days after `day` (before it when negative). */
export const addDays = (day: string, n: number): string => dayOf(new Date(dayStartMs(day) + n * DAY_MS).toISOString());

/** The UTC day of an instant. */
export const dayAt = (at: Date): string => dayOf(at.toISOString());

/**
 * The whole days before `today` in a window of `length` days, from the later of the window's start and `from`
 * (a device's first day, or its first day in its organisation), ascending; empty when `from` is today or later.
 */
export function completeDays(today: string, length: number, from: string | null): string[] {
  const start = from !== null && from > addDays(today, -length) ? from : addDays(today, -length);
  const days: string[] = [];
  for (let d = start; d < today; d = addDays(d, 1)) days.push(d);
  return days;
}
