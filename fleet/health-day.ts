// The daily health row of one device (issue 44 point 1; docs/decisions.md#fleet-health-rollup-issue-44-fleet):
// what one UTC day of a device's check-ins adds up to. One table of columns, each with its fold, is the one
// description: the pure fold below (one check-in into a day row, two partial rows into one) and the SQL the
// persist stage runs (health-sql.ts) are both made from it, so a column added here is added to both.
//
// Every fold is order-free (count, sum, min, max, the value of the latest check-in, a count per RSSI value), so a
// day folded in any order and any batching gives the same row; only check-ins actually stored are folded, so a
// replay or a redelivered batch adds nothing.
import type { DeviceData } from '../domain/checkin.js';

/** Fields of a check-in a fold reads. */
export type HealthField = Exclude<keyof DeviceData, 'IMEINumber' | 'Ongoing_fault'>;

/**
 * count: check-ins of the day; counted: check-ins reporting the field; sum, min, max: over the reported values;
 * latest: the value the day's latest check-in (by device time) reported, null if it left the field out.
 */
export type Fold = 'count' | 'counted' | 'sum' | 'min' | 'max' | 'latest';

export interface HealthColumn {
  name: string;
  type: 'integer' | 'double precision' | 'numeric' | 'text' | 'timestamptz';
  fold: Fold;
  /** What it folds (none for `count`). */
  field: HealthField | null;
}

const c = <N extends string>(name: N, type: HealthColumn['type'], fold: Fold, field: HealthField | null) => ({ name, type, fold, field });

/** The day row's columns in table order, after ("IMEINumber", day) and before the RSSI histogram and interval_s. */
export const HEALTH_COLUMNS = [
  c('received', 'integer', 'count', null),
  c('first_at', 'timestamptz', 'min', 'date'),
  c('last_at', 'timestamptz', 'max', 'date'),
  c('rssi_min', 'double precision', 'min', 'rssi'),
  c('rssi_max', 'double precision', 'max', 'rssi'),
  c('battery_mcu_min', 'double precision', 'min', 'BatteryMCU'),
  c('battery_mcu_max', 'double precision', 'max', 'BatteryMCU'),
  c('battery_mcu_last', 'double precision', 'latest', 'BatteryMCU'),
  c('battery_led_min', 'double precision', 'min', 'BatteryLED'),
  c('battery_led_max', 'double precision', 'max', 'BatteryLED'),
  c('battery_led_last', 'double precision', 'latest', 'BatteryLED'),
  c('battery_or_line', 'double precision', 'latest', 'BatteryOrLine'),
  // Connection time is what a battery forecast counts (issue 44 point 3): the day's total and how many reported it.
  c('connect_time_sum', 'numeric', 'sum', 'ConnectTime'),
  c('connect_time_n', 'integer', 'counted', 'ConnectTime'),
  c('version', 'text', 'latest', 'version'),
  c('temperature_min', 'double precision', 'min', 'Temperature'),
  c('temperature_max', 'double precision', 'max', 'Temperature'),
  // The reset settings the device reports (for settings drift, issue 44 point 5), as its latest check-in of the day said.
  c('tempfault_reset_hours', 'text', 'latest', 'Tempfault_Reset_Hours'),
  c('permfault_reset_hours', 'double precision', 'latest', 'Permfault_Reset_Hours'),
  c('current_reset', 'text', 'latest', 'Current_Reset'),
  c('block_reset', 'double precision', 'latest', 'Block_Reset'),
] as const satisfies readonly HealthColumn[];

export type HealthColumnName = (typeof HEALTH_COLUMNS)[number]['name'];

/**
 * The day's RSSI readings as a count per histogram key (histogramKey), ascending: the exact median of any day (and
 * of any run of days) of readings in whole or half dB comes from it, and it holds at most HISTOGRAM_MAX_VALUES
 * pairs whatever a device sends.
 */
export type Histogram = readonly (readonly [value: number, count: number])[];

/**
 * The RSSI histogram's columns (its keys ascending and the count of each, side by side) and its key's range: a
 * reading is kept to the nearest half dB within +-limit (docs/decisions.md#review-of-the-held-clear-and-the-rollup).
 */
export const HISTOGRAM = { field: 'rssi', values: 'rssi_values', counts: 'rssi_counts', limit: 255 } as const satisfies { field: HealthField; values: string; counts: string; limit: number };

/** The most pairs a day's histogram holds: every half dB from -limit to +limit. */
export const HISTOGRAM_MAX_VALUES = 4 * HISTOGRAM.limit + 1;

/**
 * A reading's histogram key: clamped to +-limit first (so doubling it never overflows, in SQL an error that would
 * stop the batch), then to the nearest half dB, halves up. health-sql.ts spells the same steps in SQL (its
 * histogramKeySql): the same IEEE operations in the same order, so both give the same key for every double.
 */
export const histogramKey = (rssi: number): number =>
  Math.floor(Math.min(HISTOGRAM.limit, Math.max(-HISTOGRAM.limit, rssi)) * 2 + 0.5) / 2;

export interface HealthDay {
  IMEINumber: string;
  /** UTC calendar day, YYYY-MM-DD. */
  day: string;
  values: Record<HealthColumnName, number | string | null>;
  rssi: Histogram;
}

/** The UTC day (YYYY-MM-DD) of an interchange timestamp (`2026-11-20T14:00:00.000Z`, domain/utc-timestamp.ts). */
export const dayOf = (iso: string): string => iso.slice(0, 10);

/** Compares two values of one column; dates are ISO strings in UTC, so text order is time order. */
const less = (a: number | string, b: number | string) => a < b;

function foldValue(col: HealthColumn, kept: number | string | null, next: number | string | null, nextIsLater: boolean): number | string | null {
  switch (col.fold) {
    case 'count':
    case 'counted':
    case 'sum':
      return (kept as number) + (next as number);
    case 'min':
      return kept === null ? next : next === null ? kept : less(next, kept) ? next : kept;
    case 'max':
      return kept === null ? next : next === null ? kept : less(kept, next) ? next : kept;
    case 'latest':
      return nextIsLater ? next : kept;
  }
}

/** What one check-in alone makes of a day: the row its fold starts from. */
function single(d: DeviceData): HealthDay {
  const values = {} as HealthDay['values'];
  for (const col of HEALTH_COLUMNS) {
    const v = col.field === null ? null : d[col.field];
    values[col.name] = col.fold === 'count' ? 1 : col.fold === 'counted' ? (v === null ? 0 : 1) : col.fold === 'sum' ? (v ?? 0) : v;
  }
  const rssi = d[HISTOGRAM.field];
  return { IMEINumber: d.IMEINumber, day: dayOf(d.date), values, rssi: rssi === null ? [] : [[histogramKey(rssi), 1]] };
}

export function mergeHistograms(a: Histogram, b: Histogram): Histogram {
  const counts = new Map<number, number>(a);
  for (const [v, n] of b) counts.set(v, (counts.get(v) ?? 0) + n);
  return [...counts].sort(([x], [y]) => x - y);
}

/** Two partial rows of one device and day into one (what persist's upsert does with the stored row and a batch's). */
export function mergeDays(a: HealthDay, b: HealthDay): HealthDay {
  if (a.IMEINumber !== b.IMEINumber || a.day !== b.day) throw new Error(`cannot merge ${a.IMEINumber} ${a.day} with ${b.IMEINumber} ${b.day}`);
  // A device's check-ins have distinct dates (the stored key), so one of the two holds the day's latest.
  const bIsLater = less(a.values.last_at as string, b.values.last_at as string);
  const values = {} as HealthDay['values'];
  for (const col of HEALTH_COLUMNS) values[col.name] = foldValue(col, a.values[col.name], b.values[col.name], bIsLater);
  return { IMEINumber: a.IMEINumber, day: a.day, values, rssi: mergeHistograms(a.rssi, b.rssi) };
}

/** The day row after one more stored check-in (`row` null: the day's first). */
export const foldCheckIn = (row: HealthDay | null, d: DeviceData): HealthDay => (row === null ? single(d) : mergeDays(row, single(d)));

/** The exact median of a histogram (the mean of the two middle readings when their number is even); null when empty. */
export function histogramMedian(h: Histogram): number | null {
  const total = h.reduce((n, [, k]) => n + k, 0);
  if (total === 0) return null;
  // 0-based positions of the middle reading(s) in ascending order.
  const at = (pos: number) => {
    let seen = 0;
    for (const [v, k] of h) {
      seen += k;
      if (pos < seen) return v;
    }
    return h[h.length - 1]![0];
  };
  return (at((total - 1) >> 1) + at(total >> 1)) / 2;
}

/**
 * Least-squares slope of a value per day (e.g. each day's RSSI median over 30 days: the signal trend), from
 * (day, value) points; null with fewer than two distinct days.
 */
export function slopePerDay(points: readonly { day: string; value: number }[]): number | null {
  if (new Set(points.map((p) => p.day)).size < 2) return null;
  const xs = points.map((p) => Date.parse(`${p.day}T00:00:00Z`) / 86_400_000);
  const mx = xs.reduce((s, x) => s + x, 0) / xs.length;
  const my = points.reduce((s, p) => s + p.value, 0) / points.length;
  let sxy = 0, sxx = 0;
  points.forEach((p, i) => { sxy += (xs[i]! - mx) * (p.value - my); sxx += (xs[i]! - mx) ** 2; });
  return sxy / sxx;
}
