// The communication-lost clock (issue 20 point 2; docs/decisions.md#alarm-routing). A device's expected
// check-in interval is learned from its own history: the median of its recent intervals, never below a
// floor. Two missed intervals make it offline, never later than OFFLINE_AFTER_HOURS (the ceiling; also the
// rule for a device with too little history). The DNP3 communication-lost point, device-summary's offline
// count, the portal and the alarm clock all use `offlineAfterS` / `offlineAtSql` below: one rule.

/** CHECKIN_INTERVAL_FLOOR_MINUTES' default in seconds, for callers built without settings (tests, tools). */
export const DEFAULT_FLOOR_S = 300;

/** Intervals kept per device; the median is taken over them. */
export const CLOCK_SAMPLES = 8;
/** Fewer intervals than this and the device is judged by the ceiling alone. */
export const MIN_SAMPLES = 3;

export interface ClockState {
  lastMs: number;
  /** Seconds between consecutive check-ins, oldest first, at most CLOCK_SAMPLES. */
  intervals: number[];
  /** Median of `intervals` (seconds), null below MIN_SAMPLES. */
  expectedS: number | null;
}

export interface ClockLimits {
  /** The learned interval is at least this (seconds): a burst of quick check-ins cannot make it jumpy. */
  floorS: number;
  /** OFFLINE_AFTER_HOURS in seconds: offline never later than this after the last check-in. */
  ceilingS: number;
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The clock after a check-in dated `dateMs`. An older check-in arriving late changes nothing. */
export function advanceClock(prev: ClockState | null, dateMs: number): ClockState {
  if (!prev) return { lastMs: dateMs, intervals: [], expectedS: null };
  if (dateMs <= prev.lastMs) return prev;
  const intervals = [...prev.intervals, (dateMs - prev.lastMs) / 1000].slice(-CLOCK_SAMPLES);
  return { lastMs: dateMs, intervals, expectedS: intervals.length >= MIN_SAMPLES ? median(intervals) : null };
}

/** Seconds after the last check-in at which a device counts as offline. */
export function offlineAfterS(expectedS: number | null, { floorS, ceilingS }: ClockLimits): number {
  if (expectedS === null) return ceilingS;
  return Math.min(2 * Math.max(expectedS, floorS), ceilingS);
}

/**
 * Check-ins a device is expected to make in a whole day at its learned interval (floored as above); null with too
 * little history. The fleet health rollup keeps each day's interval (device_health_days.interval_s) and reads its
 * expected check-ins through this, with the floor in force when it is read, as the offline rule does.
 */
export function expectedPerDay(expectedS: number | null, floorS: number): number | null {
  return expectedS === null ? null : Math.round(86_400 / Math.max(expectedS, floorS));
}

/** True when a device last seen at `lastMs` is offline at `nowMs`. */
export function isOffline(lastMs: number, expectedS: number | null, nowMs: number, limits: ClockLimits): boolean {
  return nowMs - lastMs > offlineAfterS(expectedS, limits) * 1000;
}

/**
 * The same rule as SQL: the instant a device goes offline, from its last check-in and learned interval
 * columns and the placeholders of the floor and ceiling (seconds). `lastSql` null means never checked in.
 */
export function offlineAtSql(lastSql: string, expectedSql: string, floorParam: string, ceilingParam: string): string {
  // `greatest` skips nulls in SQL, so the "too little history" case is spelled out.
  const after = `case when ${expectedSql} is null then ${ceilingParam}::double precision
    else least(2 * greatest(${expectedSql}, ${floorParam}::double precision), ${ceilingParam}::double precision) end`;
  return `(${lastSql} + (${after}) * interval '1 second')`;
}
