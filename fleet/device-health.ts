// One device's row of device_health (migration 0034; docs/decisions.md#device-health-assessment): what the online
// rates, the signal trend and the battery forecast say from its daily rollup. Pure: fleet-health/assess.ts reads the
// facts and writes the rows; the tests call this with the facts they seeded.
import { budgetOf } from './battery-budget.js';
import { forecastBattery, RATE_WINDOW_DAYS, type BatteryStatus, type ConsumptionTotals } from './battery-forecast.js';
import { addDays, dayAt } from './days.js';
import type { HealthDay, Histogram } from './health-day.js';
import { onlineCounts } from './online-rate.js';
import { SIGNAL_SLOPE_DAYS, signalTrend, type Signal } from './signal-trend.js';

/**
 * Characters of a device's reported firmware and model kept in its assessment. Both are whatever the device sends
 * (the edge bounds only the message, 1 MiB), and the assessment's copy is what the cards, the list, its CSV and the
 * fleet digest show: a longer one is cut there, marked with an ellipsis (docs/decisions.md#review-of-fleet-health-as-a-hostile-party).
 */
export const REPORTED_TEXT_MAX = 100;

/** A reported text as the assessment keeps it: at most REPORTED_TEXT_MAX characters, the cut marked with "…". */
export const reportedText = (s: string | null): string | null =>
  s === null || [...s].length <= REPORTED_TEXT_MAX ? s : `${[...s].slice(0, REPORTED_TEXT_MAX - 1).join('')}…`;

/** The columns of a device_health_days row the assessment reads. */
export interface AssessDay {
  day: string;
  received: number;
  connectSeconds: number;
  /** interval_s: the learned interval when the day was written. */
  intervalS: number | null;
  rssi: Histogram;
  /** battery_mcu_max, battery_or_line, version: the day's best battery reading, and the latest reports. */
  batteryMcuMax: number | null;
  batteryOrLine: number | null;
  version: string | null;
}

export interface DeviceFacts {
  IMEINumber: string;
  /** The model its latest check-in reported. */
  model: string | null;
  /** checkin_clock.expected_interval_s: for days whose row kept none, and silent days. */
  clockIntervalS: number | null;
  /** The first whole day of the device in its organisation (after a move; docs/decisions.md#reach-applied-once), or null. */
  from: string | null;
  /** Its days (any range up to today), ascending. */
  days: readonly AssessDay[];
  /** The days before `days`, counted (the battery counts its whole life). */
  earlier: ConsumptionTotals;
}

export interface DeviceHealthRow {
  IMEINumber: string;
  assessed_at: string;
  history_days: number;
  expected_7d: number;
  received_7d: number;
  expected_30d: number;
  received_30d: number;
  rssi_median_7d: number | null;
  rssi_slope_30d: number | null;
  signal: Signal;
  battery_status: BatteryStatus;
  battery_end_day: string | null;
  battery_days_left: number | null;
  battery_evidence: Record<string, string | number | boolean | null>;
  firmware: string | null;
  model: string | null;
}

/** A rollup row as the assessment reads it (the pure fold's HealthDay, in tests; assess.ts reads the same columns). */
export const assessDayOf = (h: HealthDay, intervalS: number | null): AssessDay => ({
  day: h.day, received: h.values.received as number, connectSeconds: Number(h.values.connect_time_sum), intervalS, rssi: h.rssi,
  batteryMcuMax: h.values.battery_mcu_max as number | null, batteryOrLine: h.values.battery_or_line as number | null,
  version: h.values.version as string | null,
});

const latest = <T>(days: readonly AssessDay[], pick: (d: AssessDay) => T | null): T | null => {
  for (let i = days.length - 1; i >= 0; i--) {
    const v = pick(days[i]!);
    if (v !== null) return v;
  }
  return null;
};

/** The days the assessment reads one by one (the windows of the rates, the signal and the battery's rate); before them, totals. */
export const ASSESS_DAYS = Math.max(RATE_WINDOW_DAYS, SIGNAL_SLOPE_DAYS, 30);

export function deviceHealth(f: DeviceFacts, now: Date, o: { floorS: number }): DeviceHealthRow {
  const today = dayAt(now);
  const windowStart = addDays(today, -ASSESS_DAYS);
  const counted = f.days.filter((d) => f.from === null || d.day >= f.from);
  // The latest reports (firmware, line or battery) are read within the window, as assess.ts reads only it.
  const recent = counted.filter((d) => d.day >= windowStart);
  const firstDay = f.earlier.firstDay ?? f.days[0]?.day ?? null;
  const online = (length: number) => onlineCounts(counted, today, length, { firstDay, from: f.from, clockIntervalS: f.clockIntervalS, floorS: o.floorS });
  const week = online(7), month = online(30);
  const signal = signalTrend(counted, today);
  const { budget, from: budgetFrom } = budgetOf(f.model);
  const forecast = forecastBattery({
    now, budget, budgetFrom, linePowered: latest(recent, (d) => d.batteryOrLine) === 0, from: f.from, earlier: f.earlier,
    days: f.days.map((d) => ({ day: d.day, messages: d.received, connectSeconds: d.connectSeconds, voltage: d.batteryMcuMax })),
  });
  return {
    IMEINumber: f.IMEINumber,
    assessed_at: now.toISOString(),
    history_days: counted.filter((d) => d.day >= windowStart && d.day < today).length,
    expected_7d: week.expected, received_7d: week.received, expected_30d: month.expected, received_30d: month.received,
    rssi_median_7d: signal.median7d, rssi_slope_30d: signal.slope30d, signal: signal.signal,
    battery_status: forecast.status, battery_end_day: forecast.endDay, battery_days_left: forecast.daysLeft, battery_evidence: { model: reportedText(f.model), ...forecast.evidence },
    firmware: reportedText(latest(recent, (d) => d.version)),
    model: reportedText(f.model),
  };
}
