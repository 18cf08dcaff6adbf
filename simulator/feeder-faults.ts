// Feeder faults with known truth (issue 43 point 4; docs/decisions.md#indicator-audit): feeders of fault
// indicators with an imported topology, a fault at a time somewhere on them, and which indicators trip,
// as the physics of a radial feeder says. The topology given to the service is the plan; the indicators
// trip as they are installed. So a scenario can hide one dead indicator (it never trips) and one indicator
// installed on another conductor than the plan says (its phase label is wrong), among everyday noise:
// momentary faults that not every indicator senses, load surges, test faults, indicators offline or not
// yet checked in when an incident closes, lines whose topology was imported only in part.
// Deterministic: the same options give the same feeders and incidents.
import { generateImei } from './fleet.js';
import { seededRandom } from './seeded-random.js';
import type { SimulatedMessage } from './fleet.js';

export type FeederPhase = 'A' | 'B' | 'C' | 'ABC';
export type FaultKind = 'permanent' | 'momentary' | 'unknown';

/** A device as the import file gives it (reference-data device fields). */
export interface PlannedDevice { imei: string; powerLineId: string; name: string; upstream: string | null; phase: FeederPhase | null; section: string | null }

/** A device's latest check-in when an incident closes, as the service would hold it. */
export interface LatestAtClose { date: number; ongoingFault: number; expectedS: number | null }

export interface FeederIncident {
  /** 0-based order. */
  seq: number;
  powerLineId: string;
  kind: FaultKind;
  /** Device time of the first trip; the trips lie within 20 s after it. */
  at: number;
  /** The indicators whose trips reach the service (installed on the fault current's path, not dead, reporting). */
  tripped: { imei: string; at: number; eventType: string }[];
  /** The indicators the fault current passed, as installed, and those the plan says it passed (the truth). */
  path: string[];
  plannedPath: string[];
  /** A test fault started on the tripped indicator (a lone synthetic trip). */
  testFault: boolean;
  /** When the incident closes (the evidence is read then) and each device's latest check-in at that time. */
  closesAt: number;
  latest: Map<string, LatestAtClose>;
}

export interface FeederScenarioOptions {
  feeders?: number;
  seed?: number;
  /** Plant a dead indicator (never trips) on feeder 0. */
  dead?: boolean;
  /** Plant an indicator installed on phase B where the plan says A on feeder 1 (or 0 with one feeder). */
  mislabelled?: boolean;
  /** The everyday noise (see the top of this file); false: permanent faults only, every device reporting. */
  noise?: boolean;
  /** Device time of the first incident (ms) and between two. Default 2026-11-01, 1 h. */
  startTime?: number;
  spacingMs?: number;
  imeiPrefix?: string;
}

export interface FeederScenario {
  powerLines: { id: string; name: string }[];
  devices: PlannedDevice[];
  dead: string | null;
  mislabelled: string | null;
  next(): FeederIncident;
}

/** Devices per feeder: a three-phase trunk of one indicator per conductor at each of 8 poles, and 6 single-phase laterals. */
export const DEVICES_PER_FEEDER = 50;
const POLES = 8;
const LATERALS: { phase: 'A' | 'B' | 'C'; tap: number; length: number }[] = [
  { phase: 'A', tap: 2, length: 5 }, { phase: 'B', tap: 3, length: 5 }, { phase: 'C', tap: 4, length: 4 },
  { phase: 'A', tap: 5, length: 4 }, { phase: 'B', tap: 6, length: 4 }, { phase: 'C', tap: 7, length: 4 },
];
/** Feeders whose last two lateral indicators were imported without topology (every 40th). */
const incompleteFeeder = (f: number) => f % 40 === 39;

interface Physical { upstream: string | null; phase: 'A' | 'B' | 'C' }

/**
 * @example
 *   const s = feederScenario({ feeders: 200, dead: true, mislabelled: true }); // 10,000 devices
 *   const incident = s.next();
 */
export function feederScenario(o: FeederScenarioOptions = {}): FeederScenario {
  const { feeders = 200, seed = 43, noise = true, startTime = Date.UTC(2026, 10, 1), spacingMs = 3_600_000, imeiPrefix = '35877' } = o;
  const random = seededRandom(seed);
  const devices: PlannedDevice[] = [];
  const physical = new Map<string, Physical>();
  const byLine = new Map<string, string[]>();
  let index = 0;
  let dead: string | null = null;
  let mislabelled: string | null = null;
  for (let f = 0; f < feeders; f++) {
    const line = `FL${f}`;
    const add = (name: string, upstream: string | null, phase: 'A' | 'B' | 'C', section: string | null): string => {
      const imei = generateImei(imeiPrefix, index++);
      devices.push({ imei, powerLineId: line, name: `${line} ${name}`, upstream, phase, section });
      physical.set(imei, { upstream, phase });
      byLine.set(line, [...(byLine.get(line) ?? []), imei]);
      return imei;
    };
    const trunk: Record<'A' | 'B' | 'C', string[]> = { A: [], B: [], C: [] };
    for (const p of ['A', 'B', 'C'] as const) {
      for (let k = 0; k < POLES; k++) trunk[p].push(add(`trunk ${p}${k}`, k === 0 ? null : trunk[p][k - 1]!, p, k === 0 ? `${line} substation exit ${p}` : null));
    }
    const plantMislabel = o.mislabelled === true && f === Math.min(1, feeders - 1);
    LATERALS.forEach((l, j) => {
      let up = trunk[l.phase][l.tap]!;
      const length = plantMislabel && j === LATERALS.length - 1 ? l.length - 1 : l.length;
      for (let k = 0; k < length; k++) up = add(`lateral ${j} pole ${k}`, up, l.phase, k === 0 ? `${line} lateral ${j}` : null);
    });
    if (o.dead === true && f === 0) dead = trunk.A[2]!;
    if (plantMislabel) {
      // Planned between A2 and A3; installed between B2 and B3.
      const x = add('trunk A2b', trunk.A[2]!, 'A', null);
      devices.find((d) => d.imei === trunk.A[3])!.upstream = x;
      physical.set(x, { upstream: trunk.B[2]!, phase: 'B' });
      physical.set(trunk.B[3]!, { upstream: x, phase: 'B' });
      mislabelled = x;
    }
    if (incompleteFeeder(f)) {
      for (const d of devices.filter((x) => x.powerLineId === line).slice(-2)) { d.upstream = null; d.phase = null; d.section = null; }
    }
  }
  const lines = [...byLine.keys()];
  const plannedOf = new Map(devices.map((d) => [d.imei, d]));
  const pathUp = (imei: string, up: (i: string) => string | null): string[] => {
    const out: string[] = [];
    for (let at: string | null = imei; at !== null && !out.includes(at); at = up(at)) out.push(at);
    return out;
  };
  const physicalPath = (i: string) => pathUp(i, (x) => physical.get(x)?.upstream ?? null);
  const plannedPath = (i: string) => pathUp(i, (x) => plannedOf.get(x)?.upstream ?? null);
  // A device's learned check-in interval: every 15 minutes.
  const INTERVAL_S = 900;
  let seq = 0;

  return {
    powerLines: lines.map((id) => ({ id, name: `Feeder ${id.slice(2)}` })),
    devices,
    dead,
    mislabelled,
    next(): FeederIncident {
      const at = startTime + seq * spacingMs;
      const line = random.pick(lines);
      const imeis = byLine.get(line)!;
      const r = random.next();
      const kind: FaultKind = !noise || r < 0.55 ? 'permanent' : r < 0.9 ? 'momentary' : 'unknown';
      const testFault = noise && kind === 'permanent' && random.chance(0.03);
      // The fault lies just below one installed indicator (on a trunk, sometimes on two conductors at once).
      const below = [random.pick(imeis)];
      const name = plannedOf.get(below[0]!)!.name;
      const trunkPole = /trunk ([ABC])(\d)$/.exec(name);
      if (trunkPole && random.chance(0.2)) {
        const other = (['A', 'B', 'C'] as const).filter((p) => p !== trunkPole[1])[random.int(0, 1)]!;
        const twin = imeis.find((i) => plannedOf.get(i)!.name === `${line} trunk ${other}${trunkPole[2]}`);
        if (twin) below.push(twin);
      }
      const path = [...new Set(below.flatMap(physicalPath))];
      const planned = [...new Set(below.flatMap(plannedPath))];
      let trips: string[];
      if (testFault) trips = [random.pick(imeis)];
      else if (kind === 'unknown') trips = [random.pick(imeis)]; // a load surge over one indicator's setting
      else trips = path.filter((i) => i !== dead && (kind === 'permanent' || random.chance(0.7)));
      const closesAt = at + 45 * 60_000;
      const latest = new Map<string, LatestAtClose>();
      for (const i of imeis) {
        const roll = noise ? random.next() : 1;
        // Offline for a day (its trip, if any, never arrived); not yet checked in since the fault; reported.
        const date = roll < 0.03 ? at - 30 * 3_600_000 : roll < 0.08 ? at - 5 * 60_000 : at + random.int(16, 30) * 60_000;
        latest.set(i, { date, ongoingFault: 0, expectedS: INTERVAL_S });
      }
      const tripped = trips.filter((i) => latest.get(i)!.date > at).map((imei, n) => ({
        imei, at: at + n * 1000, eventType: kind === 'permanent' ? 'PFault' : kind === 'momentary' ? 'TFault' : 'Overcurrent',
      }));
      return { seq: seq++, powerLineId: line, kind, at, tripped, path, plannedPath: planned, testFault, closesAt, latest };
    },
  };
}

/**
 * The queue messages of an incident, as the devices send them: each tripped indicator's check-in a minute
 * after its trip, carrying the trip event and the fault it reports; then every device's check-in at its
 * latest time (current back, no fault) unless it is offline or late. `eventIds`: the next EventID per device.
 */
export function incidentMessages(incident: FeederIncident, eventIds: Map<string, number>): { trips: SimulatedMessage[]; after: SimulatedMessage[] } {
  const trips = incident.tripped.map((t) => {
    const id = eventIds.get(t.imei) ?? 100;
    eventIds.set(t.imei, id + 1);
    const fault = t.eventType === 'PFault' ? 4 : t.eventType === 'TFault' ? 2 : 0;
    return checkIn(t.imei, t.at + 60_000, fault, [{ EventID: id, EventTimestamp: iso(t.at), EventType: t.eventType, PrefaultCurrent: 140, FaultCurrent: 812, RecoverCurrent: 0 }]);
  });
  const after = [...incident.latest].filter(([, l]) => l.date > incident.at).map(([imei, l]) => checkIn(imei, l.date, l.ongoingFault, []));
  return { trips, after };
}

function checkIn(imei: string, date: number, fault: number, events: SimulatedMessage['events']): SimulatedMessage {
  return {
    device_data: {
      IMEINumber: imei, model: 'FCI-3000', version: '4.2.1', date: iso(date), rssi: -70, current_status: fault === 4 ? 0 : 1, master: 0,
      statusPacket: '0000', eventPacket: events.length ? '01' : '00', LEDDuration: 4, LEDTimer: 8, BatteryMCU: 3.5, BatteryLED: 3.4,
      State: fault > 0 ? 1 : 0, FaultType: fault === 4 ? 2 : fault === 2 ? 1 : 0, BatteryOrLine: 0, FastMode: 0, Calibrated: 1,
      AverageCurrent1m: fault === 4 ? 0 : 150, PrefaultCurrent: 140, AverageCurrent1h: 150, PeakCurrent24h: 210, Tempfault_Reset_Hours: '2',
      Permfault_Reset_Hours: 8, SOTF: 0, Brightness: 'High', Current_Reset: 'Auto', Block_Reset: 0, Ongoing_fault: fault, channel: 3,
      gps_long: -87.6, gps_lat: 41.9, Program: 'STD-7', ConnectTime: 12, Temperature: 12,
    },
    events,
    currents: { PeakCurrent: 210, PeakCurrentTimestamp: iso(date - 3_600_000), HourlyAverages: Array.from({ length: 24 }, () => 150) },
    dm1_device: false,
  };
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
