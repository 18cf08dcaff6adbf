// UTC calendar days (YYYY-MM-DD, as device_health_days.day) and the windows the fleet assessment reads.
import { dayOf } from './health-day.js';

export const DAY_MS = 86_400_000;

/** Midnight UTC of a day, in ms. */
export const dayStartMs = (day: string): number => Date.parse(`${day}T00:00:00Z`);

/** The day `n` days after `day` (before it when negative). */
export const addDays = (day: string, n: number): string => dayOf(new Date(dayStartMs(day) + n * DAY_MS).toISOString());

/** The UTC day of an instant. */
export const dayAt = (at: Date): string => dayOf(at.toISOString());
