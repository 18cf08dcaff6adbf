// RSSI decline: indicators whose signal weakens day by day (a tree growing into the antenna's path, a tower
// re-aimed) until some lose the network (issue 44 point 4: silent after a signal decline) while others still
// report, falling. Line powered, so neither battery nor charge explains their silence.
import { addDays } from '../../fleet/days.js';
import { FALLING_DB_PER_DAY, SIGNAL_MEDIAN_DAYS, WEAK_RSSI_DBM } from '../../fleet/signal-trend.js';
import { seededRandom } from '../seeded-random.js';
import { byDate, checkIn, checkInTimes, DAY, dayOf, deviceRow, HEALTHY, HOUR, near, scenarioImei, type FleetScenario, type ScenarioOptions } from './scenario.js';

/** Below this RSSI (dBm) the device no longer reaches the network. */
export const SIGNAL_LOST_DBM = -112;
const HISTORY_DAYS = 30;
/** Each device: its RSSI at the start of the history and its fall in dB per day. */
const DEVICES = [
  { startDbm: -74, perDay: 1.45 }, // lost about 3 days before the end
  { startDbm: -70, perDay: 1.75 }, // lost about 6 days before
  { startDbm: -72, perDay: 0.8 }, // still reporting, falling
  { startDbm: -68, perDay: 1.0 }, // still reporting, falling
] as const;

export function rssiDecline(o: ScenarioOptions): FleetScenario {
  const random = seededRandom(o.seed);
  const centre = { lat: 41.7, long: -88.05 };
  const start = o.endMs - HISTORY_DAYS * DAY;
  const scenario: FleetScenario = {
    name: 'rssi-decline', summary: `${DEVICES.length} indicators whose signal falls day by day; ${DEVICES.filter((d) => d.startDbm - d.perDay * HISTORY_DAYS < SIGNAL_LOST_DBM).length} lose the network`,
    reference: { powerLines: [], groups: [], devices: [] }, messages: [], truth: [],
  };
  DEVICES.forEach((spec, i) => {
    const imei = scenarioImei(o, i);
    const gps = near(random, centre, 8);
    scenario.reference.devices.push(deviceRow(o, imei, `Signal ${i + 1}`, gps));
    let lost = false;
    const lastWeek: number[] = [];
    const today = dayOf(o.endMs);
    for (const t of checkInTimes(start, o.endMs, HOUR, random.int(0, 3599) * 1000)) {
      const median = spec.startDbm - (spec.perDay * (t - start)) / DAY;
      if (median < SIGNAL_LOST_DBM) { lost = true; break; }
      const rssi = Math.round(median + (random.next() - 0.5) * 6);
      if (dayOf(t) >= addDays(today, -SIGNAL_MEDIAN_DAYS) && dayOf(t) < today) lastWeek.push(rssi);
      scenario.messages.push(checkIn(imei, t, { ...HEALTHY, BatteryOrLine: 0, rssi }, gps));
    }
    // The trend's words (fleet/signal-trend.ts): weak once the last whole week's median is at or under its weak
    // threshold (weak wins over falling), else falling (every device falls faster than FALLING_DB_PER_DAY).
    lastWeek.sort((a, b) => a - b);
    const weekMedian = lastWeek.length ? lastWeek[(lastWeek.length - 1) >> 1]! : null;
    if (spec.perDay <= -FALLING_DB_PER_DAY) throw new RangeError('an RSSI decline scenario device must fall faster than the trend calls falling');
    scenario.truth.push({ imei, scenario: scenario.name, silence: lost ? 'signal_decline' : null, signal: weekMedian !== null && weekMedian <= WEAK_RSSI_DBM ? 'weak' : 'falling' });
  });
  byDate(scenario.messages);
  return scenario;
}
