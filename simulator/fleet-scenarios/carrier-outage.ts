// A carrier outage: 50 indicators in one area, on several feeders, fall silent within the same hour (a cell
// site down), line-powered and battery alike, with no trip (issue 44 point 4: a cluster). Each feeder has its
// imported topology and most of its indicators are line powered, so within one feeder the silence looks like a
// de-energised section; only seeing it across feeders in one area tells the carrier (the triage must say
// cluster, and open no "possible de-energised section" incident).
import { CLUSTER_RADIUS_KM } from '../../fleet/silence-area.js';
import { seededRandom } from '../seeded-random.js';
import { byDate, checkIn, checkInTimes, DAY, deviceRow, HEALTHY, HOUR, near, scenarioImei, type FleetScenario, type ScenarioOptions } from './scenario.js';

export const CARRIER_DEVICES = 50;
const LINES = 5;
/**
 * Every device is within this distance of the area's centre: half the triage's area radius (one cell site's
 * reach, fleet/silence-area.ts, the one owner), so every two devices of the outage are within it of each other,
 * not only linked through a chain of neighbours.
 */
export const CARRIER_RADIUS_KM = CLUSTER_RADIUS_KM / 2;
const HISTORY_DAYS = 7;
/** The outage begins this long before the end (on the hour): the devices' last check-ins lie in the hour before. */
const OUTAGE_BEFORE_END = 6 * HOUR;

export function carrierOutage(o: ScenarioOptions): FleetScenario {
  const random = seededRandom(o.seed);
  const centre = { lat: 41.82, long: -87.62 };
  const outage = Math.floor((o.endMs - OUTAGE_BEFORE_END) / HOUR) * HOUR;
  const scenario: FleetScenario = {
    name: 'carrier-outage', summary: `${CARRIER_DEVICES} indicators on ${LINES} feeders in one area silent in the same hour (a carrier outage)`,
    reference: { powerLines: [], groups: [], devices: [] }, messages: [], truth: [],
  };
  const perLine = CARRIER_DEVICES / LINES;
  for (let l = 0; l < LINES; l++) {
    const line = `${o.organizationId}-carrier-F${l + 1}`;
    scenario.reference.powerLines.push({ Id: line, OrganizationID: o.organizationId, name: `Carrier area feeder ${l + 1}` });
    let upstream: string | null = null;
    for (let k = 0; k < perLine; k++) {
      const i = l * perLine + k;
      const imei = scenarioImei(o, i);
      const gps = near(random, centre, CARRIER_RADIUS_KM);
      // A head on all three phases, then a run of phase-A indicators; one in five runs on its battery.
      const power: 0 | 1 = k % 5 === 4 ? 1 : 0;
      scenario.reference.devices.push(deviceRow(o, imei, `Carrier F${l + 1} pole ${k}`, gps, {
        PowerLineID: line, UpstreamIMEI: upstream, Phase: k === 0 ? 'ABC' : 'A', Section: k === 0 ? `${line} substation exit` : null,
      }));
      upstream = imei;
      for (const t of checkInTimes(outage - HISTORY_DAYS * DAY, outage, HOUR, random.int(0, 3599) * 1000)) {
        scenario.messages.push(checkIn(imei, t, { ...HEALTHY, BatteryOrLine: power, rssi: random.int(-85, -65) }, gps));
      }
      scenario.truth.push({ imei, scenario: scenario.name, silence: 'cluster', together: { key: `${o.organizationId}-carrier-area` } });
    }
  }
  byDate(scenario.messages);
  return scenario;
}
