// Never commissioned: indicators in the reference data that have never checked in (installed and imported, but
// never powered up or never registered with the carrier): issue 44 point 4's first label.
import { seededRandom } from '../seeded-random.js';
import { deviceRow, near, scenarioImei, type FleetScenario, type ScenarioOptions } from './scenario.js';

const DEVICES = 3;

export function neverCommissioned(o: ScenarioOptions): FleetScenario {
  const random = seededRandom(o.seed);
  const scenario: FleetScenario = {
    name: 'never-commissioned', summary: `${DEVICES} indicators imported that never check in`,
    reference: { powerLines: [], groups: [], devices: [] }, messages: [], truth: [],
  };
  for (let i = 0; i < DEVICES; i++) {
    const imei = scenarioImei(o, i);
    scenario.reference.devices.push(deviceRow(o, imei, `Not commissioned ${i + 1}`, near(random, { lat: 41.6, long: -87.8 }, 10)));
    scenario.truth.push({ imei, scenario: scenario.name, silence: 'never_commissioned' });
  }
  return scenario;
}
