// The signal trend of a device (issue 44 point 1; docs/decisions.md#device-health-assessment): the RSSI median of
// its last SIGNAL_MEDIAN_DAYS whole days (their histograms merged: the exact median) and the least-squares slope
// of its daily medians over the last SIGNAL_SLOPE_DAYS, both from fleet/health-day.ts. Pure.
import { histogramMedian, mergeHistograms, slopePerDay, type Histogram } from './health-day.js';
import { addDays } from './days.js';

export const SIGNAL_MEDIAN_DAYS = 7;
export const SIGNAL_SLOPE_DAYS = 30;
/** A 7-day median at or under this (dBm) is weak: a cellular modem there retries, connects longer and drops check-ins. */
export const WEAK_RSSI_DBM = -100;
/** A slope at or under this (dB a day: 15 dB in 30 days) is falling. */
export const FALLING_DB_PER_DAY = -0.5;
/** Daily medians the slope needs before it may call a signal falling (fewer say little). */
export const MIN_SLOPE_DAYS = 10;

export type Signal = 'ok' | 'weak' | 'falling' | 'unknown';

export interface SignalDay { day: string; rssi: Histogram }

export interface SignalTrend {
  median7d: number | null;
  slope30d: number | null;
  /** weak before falling: a weak signal is the worse news, however it got there; unknown without a reading in 7 days. */
  signal: Signal;
}

/** From a device's days (any range, ascending), judged on the whole days before `today` (from `from` on, when given). */
export function signalTrend(days: readonly SignalDay[], today: string, from: string | null = null): SignalTrend {
  const whole = days.filter((d) => d.day < today && (from === null || d.day >= from));
  const since = (n: number) => {
    const start = addDays(today, -n);
    return whole.filter((d) => d.day >= start);
  };
  const median7d = histogramMedian(since(SIGNAL_MEDIAN_DAYS).reduce<Histogram>((h, d) => mergeHistograms(h, d.rssi), []));
  const medians = since(SIGNAL_SLOPE_DAYS).flatMap((d) => {
    const value = histogramMedian(d.rssi);
    return value === null ? [] : [{ day: d.day, value }];
  });
  const slope30d = slopePerDay(medians);
  const signal: Signal = median7d === null ? 'unknown'
    : median7d <= WEAK_RSSI_DBM ? 'weak'
      : slope30d !== null && medians.length >= MIN_SLOPE_DAYS && slope30d <= FALLING_DB_PER_DAY ? 'falling' : 'ok';
  return { median7d, slope30d, signal };
}
