// The battery forecast (issue 44 point 3; docs/decisions.md#battery-forecast): days left from the consumption the
// device shows (its check-ins and connection time, costed by its model's budget, fleet/battery-budget.ts), with
// the voltage as a late confirmation only, since a lithium cell holds its voltage flat until near its end. It
// says when it does not know: under MIN_HISTORY_DAYS of history, or when the consumption gives no end within
// FLAT_HORIZON_DAYS. Pure: the fleet worker's assessment (fleet-health/assess.ts) feeds it the daily rollup.
import type { BatteryBudget } from './battery-budget.js';
import { addDays, dayAt, dayStartMs, DAY_MS } from './days.js';

/** Whole days of history among the last RATE_WINDOW_DAYS below which the forecast says "not enough data". */
export const MIN_HISTORY_DAYS = 14;
/** The days whose consumption gives the rate (the latest ones: a device's use changes with its signal and faults). */
export const RATE_WINDOW_DAYS = 30;
/** An end within this many days is "ends soon" (the fleet view's card, issue 44 point 2). */
export const ENDS_SOON_DAYS = 90;
/** A rate that would last longer than this (ten years) gives no end worth forecasting: "flat". */
export const FLAT_HORIZON_DAYS = 3650;
/** Days left at most once the voltage is under the model's low voltage: the cell is at its knee, whatever was counted. */
export const VOLTAGE_LOW_DAYS_LEFT = 30;

export type BatteryStatus = 'ok' | 'ends_soon' | 'not_enough_data' | 'flat' | 'line_powered' | 'exhausted';

/** What one day of a device shows (device_health_days: received, connect_time_sum, battery_mcu_max). */
export interface ConsumptionDay {
  day: string;
  messages: number;
  connectSeconds: number;
  /** The day's highest battery reading (volts): the cell's voltage between the sags of the radio; null: not reported. */
  voltage: number | null;
}

/** The consumption of the days before those given (counted, never inspected day by day). */
export interface ConsumptionTotals {
  firstDay: string | null;
  messages: number;
  connectSeconds: number;
}

export const NO_EARLIER: ConsumptionTotals = { firstDay: null, messages: 0, connectSeconds: 0 };

export interface ForecastInput {
  now: Date;
  budget: BatteryBudget;
  /** The budget is the model's own or the default (said in the evidence). */
  budgetFrom: 'model' | 'default';
  /** BatteryOrLine's latest report is Line (0). */
  linePowered: boolean;
  /** Days up to now, ascending, one each (today's is partial). */
  days: readonly ConsumptionDay[];
  /** Days before `days`, counted since the device's first day. */
  earlier: ConsumptionTotals;
  /** The first whole day the device's windows count from (its organisation's, docs/decisions.md#device-health-assessment); null: all. */
  from: string | null;
}

export interface Forecast {
  status: BatteryStatus;
  /** The day the budget runs out, when there is a forecast (ok, ends_soon, exhausted). */
  endDay: string | null;
  daysLeft: number | null;
  /** What it read, shown beside the figure. */
  evidence: Record<string, string | number | boolean | null>;
}

const round = (n: number, places = 3) => Math.round(n * 10 ** places) / 10 ** places;

/** Charge of a count of check-ins and seconds of connection by a budget (mAh). */
export const chargeOf = (b: BatteryBudget, messages: number, connectSeconds: number): number =>
  messages * b.perMessageMah + connectSeconds * b.perConnectSecondMah;

export function forecastBattery(i: ForecastInput): Forecast {
  const { budget, now } = i;
  const today = dayAt(now);
  const windowStart = addDays(today, -RATE_WINDOW_DAYS);
  const counted = i.days.filter((d) => i.from === null || d.day >= i.from);
  const historyDays = counted.filter((d) => d.day >= windowStart && d.day < today).length;
  const latestVoltage = [...counted].reverse().find((d) => d.voltage !== null && d.day >= windowStart)?.voltage ?? null;
  const voltageLow = latestVoltage !== null && latestVoltage < budget.lowVoltage;
  const evidence: Forecast['evidence'] = { budgetFrom: i.budgetFrom, capacityMah: budget.capacityMah, historyDays, minHistoryDays: MIN_HISTORY_DAYS, voltage: latestVoltage, voltageLow };
  const unknown = (status: BatteryStatus): Forecast => ({ status, endDay: null, daysLeft: null, evidence });

  if (i.linePowered) return unknown('line_powered');
  if (historyDays < MIN_HISTORY_DAYS) return unknown('not_enough_data');

  // Everything the cell has given since the device's first day (a battery swap is not seen: docs/decisions.md#battery-forecast).
  const consumedMah = chargeOf(budget, i.earlier.messages, i.earlier.connectSeconds)
    + i.days.reduce((s, d) => s + chargeOf(budget, d.messages, d.connectSeconds), 0);
  const firstDay = i.earlier.firstDay ?? i.days[0]?.day ?? today;
  // The rate: the charge of the window's days (today's so far included) over the time they span up to now.
  const rateStart = [windowStart, firstDay, i.from ?? windowStart].reduce((a, b) => (a > b ? a : b));
  const spanDays = (now.getTime() - dayStartMs(rateStart)) / DAY_MS;
  const windowMah = counted.filter((d) => d.day >= rateStart).reduce((s, d) => s + chargeOf(budget, d.messages, d.connectSeconds), 0);
  const perDayMah = spanDays > 0 ? windowMah / spanDays : 0;
  const remainingMah = budget.capacityMah - consumedMah;
  Object.assign(evidence, { consumedMah: round(consumedMah, 1), remainingMah: round(remainingMah, 1), perDayMah: round(perDayMah), rateFrom: rateStart });

  if (remainingMah <= 0) return { status: 'exhausted', endDay: today, daysLeft: 0, evidence };
  // A cell stops before the check-in it cannot pay for, so a spent one is never seen past its budget: a device
  // gone quiet with less charge left than its last reporting day used ended that day (not "today").
  const lastActive = [...counted].reverse().find((d) => d.messages > 0);
  if (lastActive && lastActive.day < today && remainingMah < chargeOf(budget, lastActive.messages, lastActive.connectSeconds)) {
    return { status: 'exhausted', endDay: lastActive.day, daysLeft: 0, evidence: { ...evidence, lastReportingDay: lastActive.day } };
  }
  const counting = perDayMah > 0 ? remainingMah / perDayMah : Infinity;
  // A low voltage confirms a near end even where the count sees none (a cell older, colder or weaker than its budget).
  const left = voltageLow ? Math.min(counting, VOLTAGE_LOW_DAYS_LEFT) : counting;
  if (left > FLAT_HORIZON_DAYS) return unknown('flat');
  const daysLeft = Math.floor(left);
  return { status: daysLeft <= ENDS_SOON_DAYS ? 'ends_soon' : 'ok', endDay: dayAt(new Date(now.getTime() + left * DAY_MS)), daysLeft, evidence };
}
