// Battery drain: battery-powered indicators whose charge runs out (issue 44 points 3 and 4). Each message and
// each second of connection costs charge from a fixed budget; a device stops on the day the next message would
// cost more than it has left (its exhaustion day). The voltage holds flat until the last 15 % of the charge and
// only then falls (a lithium cell's curve), so a forecast from voltage alone would see nothing until too late;
// the consumption the device shows (messages, ConnectTime) is what tells. The battery is new at each device's
// first check-in (what the forecast assumes: docs/decisions.md#battery-forecast). The costs are the model's own
// budget (fleet/battery-budget.ts, the one owner: the forecast reads the same row); the story is compressed into
// weeks (real cells last years) by long connections (a modem retrying on a poor network), so the demo shows it.
import { budgetOf, type BatteryBudget } from '../../fleet/battery-budget.js';
import { chargeOf, MIN_HISTORY_DAYS } from '../../fleet/battery-forecast.js';
import { seededRandom } from '../seeded-random.js';
import { byDate, checkIn, DAY, dayOf, deviceRow, HEALTHY, HOUR, near, scenarioImei, type FleetScenario, type ScenarioOptions } from './scenario.js';

/** The simulated battery model; its cell and costs are its row of the budget table (the forecast's). */
export const DRAIN_MODEL = 'FCI-2000';
export const DRAIN_BUDGET: BatteryBudget = budgetOf(DRAIN_MODEL).budget;
/** Below this share of its charge a cell's voltage falls; above it, it holds flat. */
const KNEE = 0.15;
const FULL_V = 3.6;
const EMPTY_V = 3.0;

/** Each device: hours between check-ins, its usual ConnectTime, and when its battery was new (days before the end). */
const DEVICES = [
  { intervalH: 1, connectS: 195, newDaysAgo: 29 }, // ~26 days of charge: ran out 3 days before the end
  { intervalH: 1, connectS: 242, newDaysAgo: 29 }, // ~21 days: ran out 8 days before
  { intervalH: 1, connectS: 154, newDaysAgo: 27 }, // ~33 days: runs out ~6 days after
  { intervalH: 1, connectS: 121, newDaysAgo: 26 }, // ~42 days: ~16 days after
  { intervalH: 1, connectS: 121, newDaysAgo: 10 }, // 10 days of history: not enough to forecast
] as const;
/** Under this many days of history a forecast should say "not enough data" (issue 44 point 3): the forecast's own figure. */
export const MIN_FORECAST_DAYS = MIN_HISTORY_DAYS;

/** The cell's voltage at a share `f` of its charge left. */
export const drainVoltage = (f: number): number => (f > KNEE ? FULL_V - 0.02 * (1 - f) : EMPTY_V + (FULL_V - 0.02 * (1 - KNEE) - EMPTY_V) * (f / KNEE));

export function batteryDrain(o: ScenarioOptions): FleetScenario {
  const random = seededRandom(o.seed);
  const centre = { lat: 41.95, long: -87.9 };
  const scenario: FleetScenario = {
    name: 'battery-drain', summary: `${DEVICES.length} battery indicators draining to an exhaustion day (voltage flat, then falling)`,
    reference: { powerLines: [], groups: [], devices: [] }, messages: [], truth: [],
  };
  DEVICES.forEach((spec, i) => {
    const imei = scenarioImei(o, i);
    const gps = near(random, centre, 5);
    scenario.reference.devices.push(deviceRow(o, imei, `Drain ${i + 1} (battery, ${spec.intervalH} h)`, gps));
    const start = o.endMs - spec.newDaysAgo * DAY + random.int(0, 3599) * 1000;
    let charge = DRAIN_BUDGET.capacityMah;
    let last = start;
    // The whole life of the battery, also past the end (for the truth); only messages before the end are sent.
    for (let t = start; ; t += spec.intervalH * HOUR) {
      const connect = Math.max(1, Math.round(spec.connectS * (0.8 + 0.4 * random.next())));
      const cost = chargeOf(DRAIN_BUDGET, 1, connect);
      if (cost > charge) break;
      charge -= cost;
      last = t;
      if (t >= o.endMs) continue;
      const v = drainVoltage(charge / DRAIN_BUDGET.capacityMah);
      const jitter = () => Math.round((random.next() - 0.5) * 0.01 * 1000) / 1000;
      scenario.messages.push(checkIn(imei, t, {
        ...HEALTHY, model: DRAIN_MODEL, BatteryOrLine: 1, ConnectTime: connect, rssi: random.int(-80, -70),
        BatteryMCU: Math.round((v + jitter()) * 1000) / 1000, BatteryLED: Math.round((v - 0.05 + jitter()) * 1000) / 1000,
      }, gps));
    }
    const exhausted = last < o.endMs;
    scenario.truth.push({
      imei, scenario: scenario.name, silence: exhausted ? 'battery_exhausted' : null,
      battery: { exhaustionDay: dayOf(last), forecast: exhausted ? 'exhausted' : spec.newDaysAgo < MIN_FORECAST_DAYS ? 'not_enough_data' : 'ends' },
    });
  });
  byDate(scenario.messages);
  return scenario;
}
