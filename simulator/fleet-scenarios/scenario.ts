// What every fleet scenario (issue 44 point 7; docs/decisions.md#fleet-scenarios) is: the reference data to import
// (devices, their lines and groups, as an import file's rows), the queue messages its devices send over the days
// before `endMs`, and the truth a test checks the service against: the silence label each device should get at
// `endMs`, the battery's exhaustion day, the drift a group profile should show. A file per scenario builds one;
// index.ts lists them. Deterministic: the same options give the same scenario (no clock is read here).
import { generateImei, type SimulatedMessage } from '../fleet.js';
import type { Random } from '../seeded-random.js';

/** The labels of silent-device triage (device_silence.label, migration 0034). */
export type SilenceLabel = 'never_commissioned' | 'battery_exhausted' | 'signal_decline' | 'cluster' | 'deenergised' | 'unknown';

/** A drift the group profile should show (device_drift, migration 0034). */
export interface ExpectedDrift { setting: string; expected: string; reported: string; sinceDay: string }

export interface DeviceTruth {
  imei: string;
  scenario: string;
  /** The triage label at `endMs`; null: the device is not silent then. */
  silence: SilenceLabel | null;
  /** For cluster and deenergised: what the devices were judged together by (the area, or the topology point and section). */
  together?: { key: string; section?: string; point?: string };
  /**
   * Battery drain: the UTC day the battery ran out (its last message), and what a forecast at `endMs` should say:
   * `ends` (a day within reach of the history), `exhausted` (already silent), `not_enough_data` (under 14 days).
   */
  battery?: { exhaustionDay: string; forecast: 'ends' | 'exhausted' | 'not_enough_data' };
  /** RSSI decline: the signal trend at `endMs` (fleet/signal-trend.ts: weak wins over falling). */
  signal?: 'falling' | 'weak';
  /** Firmware change: the drifts against the group profile at `endMs` (empty: none). */
  drift?: ExpectedDrift[];
}

/** Import-file rows (reference-data's format, docs/integration.md#the-import-file). */
export interface ScenarioReference {
  powerLines: { Id: string; OrganizationID: string; name: string }[];
  groups: Record<string, string | number | null>[];
  devices: Record<string, string | number | boolean | string[] | null>[];
}

export interface FleetScenario {
  name: string;
  /** One line for `faultline simulate --list-scenarios` and the demo's start-up line. */
  summary: string;
  reference: ScenarioReference;
  /** The devices' queue messages, in device-time order. */
  messages: SimulatedMessage[];
  truth: DeviceTruth[];
}

export interface ScenarioOptions {
  /** The organisation its reference rows belong to. */
  organizationId: string;
  /** The end of its history: the instant its truth holds (a test assesses at it). ms since the epoch. */
  endMs: number;
  /** Leading digits of its IMEIs (each scenario has its own, so scenarios mix in one database). */
  imeiPrefix: string;
  seed: number;
}

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** The UTC day of an instant, YYYY-MM-DD. */
export const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The i-th IMEI of a scenario. */
export const scenarioImei = (o: ScenarioOptions, i: number): string => generateImei(o.imeiPrefix, i);

/** A point within `radiusKm` of a centre (rough degrees: ~111 km a degree of latitude). */
export function near(random: Random, centre: { lat: number; long: number }, radiusKm: number): { Lat: number; Long: number } {
  const r = (radiusKm / 111) * Math.sqrt(random.next());
  const a = random.next() * 2 * Math.PI;
  return { Lat: Math.round((centre.lat + r * Math.sin(a)) * 1e5) / 1e5, Long: Math.round((centre.long + (r * Math.cos(a)) / Math.cos((centre.lat * Math.PI) / 180)) * 1e5) / 1e5 };
}

/** What a healthy device reports; each scenario overrides the fields its story changes. */
export interface CheckInFields {
  model: string;
  version: string;
  rssi: number;
  BatteryMCU: number;
  BatteryLED: number;
  /** Spec 2.2: 0 line powered, 1 battery. */
  BatteryOrLine: 0 | 1;
  ConnectTime: number;
  Tempfault_Reset_Hours: string;
  Permfault_Reset_Hours: number;
  Current_Reset: string;
  Block_Reset: number;
}

export const HEALTHY: CheckInFields = {
  model: 'FCI-3000', version: '4.2.1', rssi: -72, BatteryMCU: 3.6, BatteryLED: 3.55, BatteryOrLine: 1, ConnectTime: 12,
  Tempfault_Reset_Hours: '2', Permfault_Reset_Hours: 8, Current_Reset: 'Auto', Block_Reset: 0,
};

/** One check-in without events: current flowing, no fault, the given fields. */
export function checkIn(imei: string, dateMs: number, fields: CheckInFields, gps: { Lat: number; Long: number }): SimulatedMessage {
  return {
    device_data: {
      IMEINumber: imei, date: iso(dateMs), current_status: 1, master: 0, statusPacket: '0000', eventPacket: '00', LEDDuration: 4, LEDTimer: 8,
      State: 0, FaultType: 0, FastMode: 0, Calibrated: 1, AverageCurrent1m: 150, PrefaultCurrent: 140, AverageCurrent1h: 150, PeakCurrent24h: 210,
      SOTF: 0, Brightness: 'High', Ongoing_fault: 0, channel: 3, gps_long: gps.Long, gps_lat: gps.Lat, Program: 'STD-7', Temperature: 12,
      ...fields,
    },
    events: [],
    currents: { PeakCurrent: 210, PeakCurrentTimestamp: iso(dateMs - HOUR), HourlyAverages: Array.from({ length: 24 }, () => 150) },
    dm1_device: false,
  };
}

/**
 * A device's check-in times: every `intervalMs` from `fromMs` (plus a fixed offset under the interval, so devices
 * do not all report on the hour) while before `untilMs`.
 */
export function checkInTimes(fromMs: number, untilMs: number, intervalMs: number, offsetMs: number): number[] {
  const out: number[] = [];
  for (let t = fromMs + offsetMs; t < untilMs; t += intervalMs) out.push(t);
  return out;
}

/** Messages of several devices into device-time order (the queue's order within a scenario). */
export function byDate(messages: SimulatedMessage[]): SimulatedMessage[] {
  const at = (m: SimulatedMessage) => String(m.device_data.date);
  return messages.sort((a, b) => (at(a) < at(b) ? -1 : at(a) > at(b) ? 1 : 0));
}

/** A device row of the import file, with no topology unless given. */
export function deviceRow(o: ScenarioOptions, imei: string, name: string, gps: { Lat: number; Long: number }, extra: Record<string, string | number | string[] | null> = {}): ScenarioReference['devices'][number] {
  return { IMEINumber: imei, OrganizationID: o.organizationId, Real_Name: name, ...gps, ...extra };
}

/** ISO 8601 UTC as devices send it: whole seconds without a fraction. */
export const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');
