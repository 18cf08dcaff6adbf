// The communication-lost clock (issue 20 point 2; docs/decisions.md#alarm-routing). A device's expected
// check-in interval is learned from its own history: the median of its recent intervals, never below a
// floor. Two missed intervals make it offline, never later than OFFLINE_AFTER_HOURS (the ceiling; also the
// rule for a device with too little history). The DNP3 communication-lost point, device-summary's offline
// count, the portal and the alarm clock all use `offlineAfterS` / `offlineAtSql` below: one rule. The alarm clock
// and the fleet triage judge it at `silenceAsOf` (the pipeline's progress) rather than at the wall clock.

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

/** The offline rule's limits with SILENCE_LAG_BOUND_MINUTES (seconds): what a scan for silent devices is given. */
export interface SilenceLimits extends ClockLimits {
  /**
   * How far behind now silence may be judged while the pipeline is behind (silenceAsOf). 0 or absent: at now,
   * the wall-clock rule (callers built without settings: tests and tools that set their own now).
   */
  lagBoundS?: number;
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * The clock after a check-in dated `sentMs`, handled at `nowMs`. An older check-in arriving late changes nothing.
 * A check-in dated after `nowMs` (a device clock ahead; parsing lets up to 24 h through) counts as made at
 * `nowMs`, the latest it can really have been made: dated as sent, it would put the clock up to a day ahead,
 * so the device would be judged online a day after it fell silent, its next true check-ins would read as late
 * history (no interval learned, no communication-lost alarm ended), and `silenceAsOf` below would read the
 * whole pipeline as caught up (docs/decisions.md#silence-judged-against-the-pipelines-progress).
 */
export function advanceClock(prev: ClockState | null, sentMs: number, nowMs: number): ClockState {
  const dateMs = Math.min(sentMs, nowMs);
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
 * The instant silence is judged at (docs/decisions.md#silence-judged-against-the-pipelines-progress): not the wall
 * clock but how far the pipeline has caught up, read from the stored clocks: `newest.dateMs`, the newest check-in
 * stored (device time; one dated after `nowMs` does not count), and `newest.storedAtMs`, when it was stored (wall time).
 * - The pipeline moving (that check-in stored within `boundMs`): judged at it. During a backlog (persist or
 *   Postgres was down, the queue filled, weeks of history replayed) devices whose check-ins still wait are not
 *   called silent, however old the backlog.
 * - Nothing newer stored for longer than `boundMs` (a fleet that truly went quiet: a carrier, a broken ingress;
 *   or the pipeline down): judged at `nowMs - boundMs`, so silence is still found, late by at most the bound.
 * `boundMs` 0: the wall clock, as before.
 */
export function silenceAsOf(nowMs: number, newest: { dateMs: number; storedAtMs: number } | null, boundMs: number): number {
  if (boundMs <= 0) return nowMs;
  const usable = newest !== null && newest.dateMs <= nowMs ? newest : null;
  if (usable && usable.storedAtMs >= nowMs - boundMs) return Math.min(nowMs, usable.dateMs);
  return Math.min(nowMs, Math.max(usable?.dateMs ?? -Infinity, nowMs - boundMs));
}

/**
 * `silenceAsOf` as SQL over the stored clocks: `nowParam` (timestamptz) and `boundParam` (seconds) are
 * placeholders. One pass over checkin_clock; the communication-lost scan reads every row each tick anyway.
 */
export function silenceAsOfSql(nowParam: string, boundParam: string): string {
  const now = `${nowParam}::timestamptz`;
  const floor = `${now} - ${boundParam}::double precision * interval '1 second'`;
  // No usable clock at all: the lateral row is nulls, the second test is null, and `greatest` skips the null (now - bound).
  return `(select case when ${boundParam}::double precision <= 0 then ${now}
                      when n.stored_at >= ${floor} then least(${now}, n.last_date)
                      else least(${now}, greatest(n.last_date, ${floor})) end
     from (select null) one left join lateral (
       select k.last_date, k.stored_at from checkin_clock k where k.last_date <= ${now} order by k.last_date desc limit 1) n on true)`;
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
