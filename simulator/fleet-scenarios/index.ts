// The fleet scenarios (issue 44 point 7; docs/decisions.md#fleet-scenarios), a file each, by name: what
// `faultline simulate --scenario` sends and the embedded demo seeds, and what the fleet tests check the triage,
// the forecast and the drift against (each scenario's `truth`).
import { batteryDrain } from './battery-drain.js';
import { carrierOutage } from './carrier-outage.js';
import { deenergisedLateral } from './deenergised-lateral.js';
import { firmwareDrift } from './firmware-drift.js';
import { neverCommissioned } from './never-commissioned.js';
import { rssiDecline } from './rssi-decline.js';
import type { OutgoingMessage } from '../sink.js';
import { byDate, type FleetScenario, type ScenarioOptions, type ScenarioReference } from './scenario.js';

/** Every scenario's IMEIs start with this, then its own digit: the live simulator leaves them alone. */
export const SCENARIO_IMEI_PREFIX = '35844';

/** In this order; each name's digit (its position + 1) follows SCENARIO_IMEI_PREFIX in its IMEIs. */
export const FLEET_SCENARIOS = {
  'battery-drain': batteryDrain,
  'rssi-decline': rssiDecline,
  'carrier-outage': carrierOutage,
  'deenergised-lateral': deenergisedLateral,
  'never-commissioned': neverCommissioned,
  'firmware-drift': firmwareDrift,
} as const satisfies Record<string, (o: ScenarioOptions) => FleetScenario>;

export type ScenarioName = keyof typeof FLEET_SCENARIOS;
export const SCENARIO_NAMES = Object.keys(FLEET_SCENARIOS) as ScenarioName[];

export interface FleetScenariosOptions {
  /** The end of the histories (the scenarios' "now"), ms since the epoch. */
  endMs: number;
  /** Default "north" (the demo data's organisation). */
  organizationId?: string;
  seed?: number;
  /** Default: all. */
  names?: readonly ScenarioName[];
}

/** Names from a comma-separated list (`all` for every one); an unknown name throws, naming the known ones. */
export function scenarioNames(list: string): ScenarioName[] {
  const asked = list.split(',').map((s) => s.trim()).filter(Boolean);
  if (asked.includes('all')) return [...SCENARIO_NAMES];
  const unknown = asked.filter((n) => !(n in FLEET_SCENARIOS));
  if (unknown.length || asked.length === 0) throw new RangeError(`unknown scenario ${unknown.map((n) => `"${n}"`).join(', ') || '(none given)'}; known: all, ${SCENARIO_NAMES.join(', ')}`);
  return asked as ScenarioName[];
}

/**
 * @example
 *   const [drain] = fleetScenarios({ endMs: Date.now(), names: ['battery-drain'] });
 *   // drain.reference: import it; drain.messages: send them; drain.truth: what the service should conclude
 */
export function fleetScenarios({ endMs, organizationId = 'north', seed = 44, names = SCENARIO_NAMES }: FleetScenariosOptions): FleetScenario[] {
  return names.map((name) => {
    const n = SCENARIO_NAMES.indexOf(name);
    return FLEET_SCENARIOS[name]({ endMs, organizationId, imeiPrefix: `${SCENARIO_IMEI_PREFIX}${n + 1}`, seed: seed * 100 + n });
  });
}

/** Whether an IMEI belongs to a fleet scenario. */
export const isScenarioImei = (imei: string): boolean => imei.startsWith(SCENARIO_IMEI_PREFIX);

/** The scenarios' reference data as one import file (`faultline import`). */
export function scenarioImportFile(scenarios: readonly FleetScenario[]): ScenarioReference {
  return {
    powerLines: scenarios.flatMap((s) => s.reference.powerLines),
    groups: scenarios.flatMap((s) => s.reference.groups),
    devices: scenarios.flatMap((s) => s.reference.devices),
  };
}

/**
 * The scenarios' messages as queue messages, all in device-time order, named so the spool inbox reads them in
 * that order (`run` keeps two sends apart).
 */
export function scenarioOutgoing(scenarios: readonly FleetScenario[], run: string): OutgoingMessage[] {
  const all = byDate(scenarios.flatMap((s) => s.messages));
  return all.map((m, i) => ({ name: `fleet-${run}-${String(i).padStart(8, '0')}`, body: JSON.stringify(m) }));
}

export type { DeviceTruth, ExpectedDrift, FleetScenario, ScenarioReference, SilenceLabel } from './scenario.js';
