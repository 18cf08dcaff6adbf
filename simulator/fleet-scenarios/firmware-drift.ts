// A firmware change on part of a group (issue 44 point 5): a group whose profile says firmware 4.2.1 and its
// reset settings; on one day four of its ten indicators are updated to 4.3.0 (drift since that day), one
// reports its current reset switched to Manual three days later (drift of that setting), one ran 4.3.0 for two
// days and was put back (no drift: its latest report matches), and the rest never change.
import { seededRandom } from '../seeded-random.js';
import { byDate, checkIn, checkInTimes, DAY, dayOf, deviceRow, HEALTHY, HOUR, near, scenarioImei, type ExpectedDrift, type FleetScenario, type ScenarioOptions } from './scenario.js';

const DEVICES = 10;
const HISTORY_DAYS = 14;
/** The profile of the scenario's group (the import's group columns, docs/integration.md). */
export const DRIFT_PROFILE = { FirmwareVersion: '4.2.1', Tempfault_Reset_Hours: '2', Permfault_Reset_Hours: 8, Current_Reset: 'Auto', Block_Reset: 0 } as const;
const UPDATED = '4.3.0';

export function firmwareDrift(o: ScenarioOptions): FleetScenario {
  const random = seededRandom(o.seed);
  const group = `${o.organizationId}-firmware-crew`;
  const start = o.endMs - HISTORY_DAYS * DAY;
  // The update is rolled out at 02:00 UTC eight days before the end; devices take it at their next check-in (the same day).
  const updateAt = Math.floor((o.endMs - 8 * DAY) / DAY) * DAY + 2 * HOUR;
  const manualAt = updateAt + 3 * DAY;
  const tried = { from: updateAt - 5 * DAY, to: updateAt - 3 * DAY };
  const scenario: FleetScenario = {
    name: 'firmware-drift', summary: `a group of ${DEVICES} with a profile; 4 updated to ${UPDATED}, one switched to a manual current reset`,
    reference: { powerLines: [], groups: [{ GroupID: group, OrganizationID: o.organizationId, name: 'Firmware crew', ...DRIFT_PROFILE }], devices: [] },
    messages: [], truth: [],
  };
  for (let i = 0; i < DEVICES; i++) {
    const imei = scenarioImei(o, i);
    const gps = near(random, { lat: 41.88, long: -88.15 }, 6);
    scenario.reference.devices.push(deviceRow(o, imei, `Firmware crew ${i + 1}`, gps, { groups: [group] }));
    const drift: ExpectedDrift[] = [];
    let firstUpdated: number | null = null;
    let firstManual: number | null = null;
    for (const t of checkInTimes(start, o.endMs, HOUR, random.int(0, 3599) * 1000)) {
      let version: string = DRIFT_PROFILE.FirmwareVersion;
      let currentReset: string = DRIFT_PROFILE.Current_Reset;
      if (i < 4 && t >= updateAt) { version = UPDATED; firstUpdated ??= t; }
      if (i === 4 && t >= manualAt) { currentReset = 'Manual'; firstManual ??= t; }
      if (i === 5 && t >= tried.from && t < tried.to) version = UPDATED;
      scenario.messages.push(checkIn(imei, t, { ...HEALTHY, BatteryOrLine: 0, version, Current_Reset: currentReset, rssi: random.int(-85, -65) }, gps));
    }
    if (firstUpdated !== null) drift.push({ setting: 'version', expected: DRIFT_PROFILE.FirmwareVersion, reported: UPDATED, sinceDay: dayOf(firstUpdated) });
    if (firstManual !== null) drift.push({ setting: 'Current_Reset', expected: DRIFT_PROFILE.Current_Reset, reported: 'Manual', sinceDay: dayOf(firstManual) });
    scenario.truth.push({ imei, scenario: scenario.name, silence: null, drift });
  }
  byDate(scenario.messages);
  return scenario;
}
