// A de-energised lateral: on a feeder with its imported topology (each indicator names the one directly
// upstream, its phase, and a Section label for the stretch below it: domain/feeder-topology.ts), every
// line-powered indicator below one point (the first indicator of a single-phase lateral) falls silent at one
// instant with no trip (a blown fuse or an open cutout the SCADA never saw), while the trunk above it and another
// lateral keep reporting (issue 44 point 4: deenergised, one "possible de-energised section" incident naming
// the section).
import { seededRandom } from '../seeded-random.js';
import { byDate, checkIn, checkInTimes, DAY, deviceRow, HEALTHY, HOUR, near, scenarioImei, type FleetScenario, type ScenarioOptions } from './scenario.js';

const HISTORY_DAYS = 7;
const TRUNK_POLES = 5;
/** The lateral that loses power: tapped at trunk pole 2, phase A, this many indicators. */
export const DEAD_LATERAL = { tap: 2, phase: 'A', length: 6 } as const;
const LIVE_LATERAL = { tap: 3, phase: 'B', length: 4 } as const;
/** Power is lost this long before the end: the lateral's last check-ins lie in the hour before. */
const LOST_BEFORE_END = 5 * HOUR;

export function deenergisedLateral(o: ScenarioOptions): FleetScenario {
  const random = seededRandom(o.seed);
  const centre = { lat: 42.05, long: -87.75 };
  const line = `${o.organizationId}-lateral-F1`;
  const lost = o.endMs - LOST_BEFORE_END;
  const start = o.endMs - HISTORY_DAYS * DAY;
  const section = `${line} Elm St lateral`;
  const scenario: FleetScenario = {
    name: 'deenergised-lateral', summary: `a lateral of ${DEAD_LATERAL.length} line-powered indicators below one point falls silent with no trip`,
    reference: { powerLines: [{ Id: line, OrganizationID: o.organizationId, name: 'Lateral feeder 1' }], groups: [], devices: [] }, messages: [], truth: [],
  };
  let index = 0;
  const add = (name: string, upstream: string | null, phase: string, label: string | null, until: number) => {
    const imei = scenarioImei(o, index++);
    const gps = near(random, centre, 1.5);
    scenario.reference.devices.push(deviceRow(o, imei, name, gps, { PowerLineID: line, UpstreamIMEI: upstream, Phase: phase, Section: label }));
    for (const t of checkInTimes(start, until, HOUR, random.int(0, 3599) * 1000)) {
      scenario.messages.push(checkIn(imei, t, { ...HEALTHY, BatteryOrLine: 0, rssi: random.int(-85, -65) }, gps));
    }
    return imei;
  };
  const trunk: string[] = [];
  for (let k = 0; k < TRUNK_POLES; k++) {
    trunk.push(add(`Lateral F1 trunk pole ${k}`, k === 0 ? null : trunk[k - 1]!, 'ABC', k === 0 ? `${line} substation exit` : null, o.endMs));
    scenario.truth.push({ imei: trunk[k]!, scenario: scenario.name, silence: null });
  }
  let up = trunk[LIVE_LATERAL.tap]!;
  for (let k = 0; k < LIVE_LATERAL.length; k++) {
    up = add(`Lateral F1 Oak St pole ${k}`, up, LIVE_LATERAL.phase, k === 0 ? `${line} Oak St lateral` : null, o.endMs);
    scenario.truth.push({ imei: up, scenario: scenario.name, silence: null });
  }
  up = trunk[DEAD_LATERAL.tap]!;
  let point: string | null = null;
  const dead: string[] = [];
  for (let k = 0; k < DEAD_LATERAL.length; k++) {
    up = add(`Lateral F1 Elm St pole ${k}`, up, DEAD_LATERAL.phase, k === 0 ? section : null, lost);
    point ??= up;
    dead.push(up);
  }
  // The point is the lateral's first indicator (its Section names the stretch); the trunk pole above it still reports.
  for (const imei of dead) scenario.truth.push({ imei, scenario: scenario.name, silence: 'deenergised', together: { key: section, section, point: point! } });
  byDate(scenario.messages);
  return scenario;
}
