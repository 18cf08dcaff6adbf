// The battery forecast (fleet/battery-forecast.ts) on simulated drains: a budget of N mAh, a charge per check-in and
// per second of connection, noise on both; the forecast's end day lands within ±10 % of the day the simulated cell
// runs out, says "not enough data" at 13 days and "flat" when the consumption gives no end, and a voltage that holds
// flat until the end does not move it. No servers.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_BATTERY_BUDGET, budgetOf, type BatteryBudget } from '../../fleet/battery-budget.js';
import {
  chargeOf, ENDS_SOON_DAYS, forecastBattery, MIN_HISTORY_DAYS, NO_EARLIER, VOLTAGE_LOW_DAYS_LEFT, type ConsumptionDay, type ForecastInput,
} from '../../fleet/battery-forecast.js';
import { addDays, dayStartMs, DAY_MS } from '../../fleet/days.js';
import { seededRandom } from '../../simulator/seeded-random.js';

const START = '2026-01-01';

interface Drain {
  days: ConsumptionDay[];
  /** Index of the day the cumulative charge reaches the budget (the device's last day). */
  exhaustedOn: number;
}

/**
 * A device from a new cell on START: each day `perDay` check-ins (±30 %) of `connectS` seconds each (±50 %), the
 * voltage flat at 3.6 V until the cell is spent (`voltageDropDays` before its end it falls to 3.0 V, when given).
 */
function simulate(budget: BatteryBudget, { seed, perDay, connectS, growth = 0, voltageDropDays = 0 }: { seed: number; perDay: number; connectS: number; growth?: number; voltageDropDays?: number }): Drain {
  const random = seededRandom(seed);
  const days: ConsumptionDay[] = [];
  let spent = 0;
  for (let i = 0; ; i++) {
    const scale = 1 + growth * i;
    const messages = Math.max(1, Math.round(perDay * scale * random.real(0.7, 1.3, 3)));
    let connectSeconds = 0;
    for (let k = 0; k < messages; k++) connectSeconds += connectS * random.real(0.5, 1.5, 3);
    days.push({ day: addDays(START, i), messages, connectSeconds: Math.round(connectSeconds), voltage: 3.6 });
    spent += chargeOf(budget, messages, Math.round(connectSeconds));
    if (spent >= budget.capacityMah) {
      for (let k = Math.max(0, i - voltageDropDays + 1); k <= i && voltageDropDays > 0; k++) days[k]!.voltage = 3.0;
      return { days, exhaustedOn: i };
    }
  }
}

/**
 * The forecast at noon of the day of `drain.days[t]` (that day partial), the days before the 30-day window given as
 * totals, as assess.ts reads them.
 */
function forecastOn(drain: Drain, t: number, budget: BatteryBudget, over: Partial<ForecastInput> = {}) {
  const now = new Date(dayStartMs(drain.days[t]!.day) + DAY_MS / 2);
  const today = drain.days.slice(0, t + 1);
  // Today's check-ins up to noon: half the day.
  const seen = today.map((d, i) => (i === t ? { ...d, messages: Math.round(d.messages / 2), connectSeconds: Math.round(d.connectSeconds / 2) } : d));
  const cut = seen.findIndex((d) => d.day >= addDays(seen[t]!.day, -30));
  const earlierDays = seen.slice(0, cut);
  const earlier = earlierDays.length === 0 ? NO_EARLIER : {
    firstDay: earlierDays[0]!.day,
    messages: earlierDays.reduce((s, d) => s + d.messages, 0), connectSeconds: earlierDays.reduce((s, d) => s + d.connectSeconds, 0),
  };
  return forecastBattery({ now, budget, budgetFrom: 'model', linePowered: false, days: seen.slice(cut), earlier, from: null, ...over });
}

const dayIndex = (day: string) => Math.round((dayStartMs(day) - dayStartMs(START)) / DAY_MS);

const SMALL: BatteryBudget = { ...DEFAULT_BATTERY_BUDGET, capacityMah: 2_000 };
const cases = [
  { name: 'small cell, six check-ins a day', budget: SMALL, perDay: 6, connectS: 20 },
  { name: 'small cell, hourly check-ins, short connections', budget: SMALL, perDay: 24, connectS: 8 },
  { name: 'the default cell, a chatty device (long connections)', budget: DEFAULT_BATTERY_BUDGET, perDay: 48, connectS: 60 },
  { name: 'the FCI-2000 budget', budget: budgetOf('FCI-2000').budget, perDay: 24, connectS: 30 },
];

for (const c of cases) {
  test(`drain (${c.name}): the end day lands within ±10 % of the simulated exhaustion day, from day 14 on`, () => {
    for (const seed of [1, 2, 3]) {
      const drain = simulate(c.budget, { seed, perDay: c.perDay, connectS: c.connectS });
      const e = drain.exhaustedOn;
      for (const t of [MIN_HISTORY_DAYS, 30, 90, Math.floor(e / 2), Math.floor(e * 0.9)].filter((t) => t < e)) {
        const f = forecastOn(drain, t, c.budget);
        assert.ok(f.status === 'ok' || f.status === 'ends_soon', `day ${t}: ${f.status}`);
        const end = dayIndex(f.endDay!);
        assert.ok(Math.abs(end - e) <= 0.1 * e, `seed ${seed} day ${t}: forecast end day ${end}, exhausted on day ${e}`);
        assert.is(f.daysLeft! <= ENDS_SOON_DAYS, f.status === 'ends_soon');
      }
    }
  });
}

test('a consumption that grows slowly (a signal weakening: longer connections) is followed by the 30-day rate', () => {
  const drain = simulate(SMALL, { seed: 7, perDay: 6, connectS: 20, growth: 0.002 });
  const e = drain.exhaustedOn;
  for (const t of [Math.floor(e / 2), Math.floor(e * 0.8)]) {
    const end = dayIndex(forecastOn(drain, t, SMALL).endDay!);
    assert.ok(Math.abs(end - e) <= 0.1 * e, `day ${t}: forecast ${end}, exhausted on ${e}`);
  }
});

test('"not enough data" with 13 whole days of history; a forecast with 14', () => {
  const drain = simulate(SMALL, { seed: 4, perDay: 6, connectS: 20 });
  const at13 = forecastOn(drain, 13, SMALL);
  assert.is(at13.status, 'not_enough_data');
  assert.is(at13.endDay, null);
  assert.is(at13.daysLeft, null);
  assert.is(at13.evidence.historyDays, 13);
  assert.is(forecastOn(drain, 14, SMALL).status, 'ok');
});

test('"not enough data" counts days with check-ins, not calendar days: a device silent 17 of the last 30 days', () => {
  const drain = simulate(SMALL, { seed: 5, perDay: 6, connectS: 20 });
  const gappy: Drain = { ...drain, days: drain.days.filter((_, i) => i < 40 || i >= 57) };
  // Day 70 is index 53 in the gappy list; its window (days 40..69) holds 13 days with check-ins.
  const f = forecastOn(gappy, 53, SMALL);
  assert.is(f.status, 'not_enough_data');
});

test('"flat" when the consumption gives no end within the horizon: a device that barely consumes', () => {
  const drain = simulate(DEFAULT_BATTERY_BUDGET, { seed: 6, perDay: 6, connectS: 20 });
  const idle: Drain = { ...drain, days: drain.days.slice(0, 60).map((d) => ({ ...d, messages: 1, connectSeconds: 0 })) };
  const f = forecastOn(idle, 59, DEFAULT_BATTERY_BUDGET);
  assert.is(f.status, 'flat');
  assert.is(f.endDay, null);
});

test('a voltage that holds flat until the end does not fool it: the count forecasts the end, the voltage says nothing early', () => {
  const drain = simulate(SMALL, { seed: 8, perDay: 6, connectS: 20 });
  const e = drain.exhaustedOn;
  assert.ok(drain.days.slice(0, e + 1).every((d) => d.voltage === 3.6));
  const f = forecastOn(drain, Math.floor(e * 0.95), SMALL);
  assert.is(f.status, 'ends_soon');
  assert.is(f.evidence.voltageLow, false);
  assert.ok(Math.abs(dayIndex(f.endDay!) - e) <= 0.1 * e);
});

test('a low voltage confirms an end the count did not see (a cell weaker than its budget): at most 30 days left', () => {
  const drain = simulate(SMALL, { seed: 9, perDay: 6, connectS: 20, voltageDropDays: 400 });
  const f = forecastOn(drain, 40, SMALL);
  assert.is(f.evidence.voltageLow, true);
  assert.is(f.status, 'ends_soon');
  assert.ok(f.daysLeft! <= VOLTAGE_LOW_DAYS_LEFT, String(f.daysLeft));
});

test('a budget spent is "exhausted"; a line-powered device says so and forecasts nothing', () => {
  const drain = simulate(SMALL, { seed: 10, perDay: 6, connectS: 20 });
  const past = forecastOn({ ...drain, days: [...drain.days, ...drain.days.slice(0, 10).map((d, i) => ({ ...d, day: addDays(drain.days.at(-1)!.day, i + 1) }))] }, drain.exhaustedOn + 5, SMALL);
  assert.is(past.status, 'exhausted');
  assert.is(past.daysLeft, 0);
  const line = forecastOn(drain, 60, SMALL, { linePowered: true });
  assert.is(line.status, 'line_powered');
  assert.is(line.endDay, null);
});

test('a device gone quiet with less charge left than its last day used is "exhausted" on that day, not "ends today"', () => {
  // A real cell stops before the check-in it cannot pay for: spent to within a day's use, never past the budget.
  const drain = simulate(SMALL, { seed: 12, perDay: 6, connectS: 20 });
  const days = drain.days.slice(0, drain.exhaustedOn + 1).map((d) => ({ ...d }));
  const last = days.at(-1)!;
  const spent = () => days.reduce((n, d) => n + chargeOf(SMALL, d.messages, d.connectSeconds), 0);
  while (spent() >= SMALL.capacityMah) { last.connectSeconds = Math.round(last.connectSeconds * (last.messages - 1) / last.messages); last.messages--; }
  // Then eight silent days (the rollup holds no check-in for them).
  const quiet = Array.from({ length: 8 }, (_, i) => ({ day: addDays(last.day, i + 1), messages: 0, connectSeconds: 0, voltage: null }));
  const f = forecastOn({ days: [...days, ...quiet], exhaustedOn: drain.exhaustedOn }, days.length + 7, SMALL);
  const lastReporting = days.filter((d) => d.messages > 0).at(-1)!.day;
  assert.equal([f.status, f.endDay, f.daysLeft], ['exhausted', lastReporting, 0], JSON.stringify(f));
});

test('a model without a budget of its own is forecast with the default, and the evidence says so', () => {
  assert.is(budgetOf('FCI-3000').from, 'model');
  assert.equal(budgetOf('XYZ-1'), { budget: DEFAULT_BATTERY_BUDGET, from: 'default' });
  assert.equal(budgetOf(null).from, 'default');
  const drain = simulate(SMALL, { seed: 11, perDay: 6, connectS: 20 });
  assert.is(forecastOn(drain, 20, SMALL, { budgetFrom: 'default' }).evidence.budgetFrom, 'default');
});

test.run();
