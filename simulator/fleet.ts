// A fleet of simulated fault indicators writing queue messages (spec 2.1 to 2.4) as the socket server
// would: check-ins with device_data, 24 hourly current averages and, now and then, fault events with
// EventIDs that only grow per device. Deterministic: the same options and seed give the same messages
// (no clock is read here; run-simulation.ts passes the start time).
import { seededRandom, type Random } from './seeded-random.js';

/** One queue message as JSON-ready data (the socket server's shape, before any validation). */
export interface SimulatedMessage {
  device_data: Record<string, string | number>;
  events: SimulatedEvent[];
  currents: { PeakCurrent: number; PeakCurrentTimestamp: string; HourlyAverages: number[] };
  dm1_device: boolean;
}

export interface SimulatedEvent {
  EventID: number;
  EventTimestamp: string;
  EventType: string;
  PrefaultCurrent: number;
  FaultCurrent: number;
  RecoverCurrent: number;
}

export interface FleetMessage {
  imei: string;
  /** 0-based position in the fleet's output. */
  sequence: number;
  message: SimulatedMessage;
}

export interface FleetOptions {
  /** Number of devices; ignored when `imeis` is given. Default 10. */
  devices?: number;
  imeis?: readonly string[];
  /** Leading digits of generated IMEIs (15 digits with a Luhn check digit). Default '35899'. */
  imeiPrefix?: string;
  seed?: number;
  /** First check-in time, ms since the epoch. Default 2026-11-20T00:00:00Z. */
  startTime?: number;
  /** Time between two check-ins of one device (whole seconds). Default 15 min. */
  intervalMs?: number;
  /** Exactly this many events in every check-in (benchmarks). Default: occasional events only. */
  eventsPerCheckIn?: number;
  /** Chance that a check-in carries an event scenario when eventsPerCheckIn is not set. Default 0.08. */
  eventChance?: number;
  /** Lowest first EventID of a device; each device starts somewhere in the 1000 above it. Default 100. */
  firstEventId?: number;
}

export interface Fleet {
  readonly imeis: readonly string[];
  /** The next message, devices in turn (device 0, 1, ... n-1, then each one's next check-in). */
  next(): FleetMessage;
}

type Scenario = 'PFault' | 'TFault' | 'Fault <50 then TFault' | 'Current Reset' | 'Overcurrent';
const SCENARIOS: readonly Scenario[] = ['PFault', 'TFault', 'Fault <50 then TFault', 'Current Reset', 'Overcurrent'];
const SINGLE_EVENT: readonly Scenario[] = ['PFault', 'TFault', 'Current Reset', 'Overcurrent'];
/** Ongoing_fault the device reports after each scenario (spec 3.1 codes; the service computes the rest). */
const REPORTED_FAULT: Record<Scenario, number> = { PFault: 4, TFault: 2, 'Fault <50 then TFault': 2, 'Current Reset': 0, Overcurrent: 0 };
// Mostly current models, a few legacy strings that spec 3.3 replaces (fixtures/model-map.json).
const MODELS = ['FCI-3000', 'FCI-3000', 'FCI-3000', 'FCI-2000', 'FI-2000-A', 'fci3k', 'FI-5A 3-C04TRB-X-1(80)EU'] as const;

/**
 * A device's model follows from its IMEI alone (FNV-1a hash), so the same device reports the same model in every
 * run, whatever the seed or start time: a restarted simulator must not make devices look replaced (spec 6.1
 * step 5 would raise a model-change alert for each).
 */
export function modelOf(imei: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < imei.length; i++) hash = Math.imul(hash ^ imei.charCodeAt(i), 0x01000193) >>> 0;
  return MODELS[hash % MODELS.length]!;
}

interface Device {
  imei: string;
  model: string;
  baseLoad: number;
  lat: number;
  long: number;
  offsetMs: number;
  checkIns: number;
  nextEventId: number;
  /** Check-ins left that still report a permanent fault (a dead line stays dead for a while). */
  faultHold: number;
}

/**
 * @example
 *   const fleet = createFleet({ devices: 100, seed: 7 });
 *   const { imei, message } = fleet.next();
 */
export function createFleet(options: FleetOptions = {}): Fleet {
  const {
    devices: count = 10, imeiPrefix = '35899', seed = 1, startTime = Date.UTC(2026, 10, 20), intervalMs = 15 * 60_000,
    eventsPerCheckIn, eventChance = 0.08, firstEventId = 100,
  } = options;
  if (!(intervalMs >= 1000) || intervalMs % 1000 !== 0) throw new RangeError(`intervalMs must be whole seconds, got ${intervalMs}`);
  if (eventsPerCheckIn !== undefined && !(Number.isInteger(eventsPerCheckIn) && eventsPerCheckIn >= 0)) {
    throw new RangeError(`eventsPerCheckIn must be a non-negative integer, got ${eventsPerCheckIn}`);
  }
  const random = seededRandom(seed);
  const imeis = options.imeis ? [...options.imeis] : Array.from({ length: count }, (_, i) => generateImei(imeiPrefix, i));
  if (imeis.length === 0) throw new RangeError('a fleet needs at least one device');

  const fleet: Device[] = imeis.map((imei) => ({
    imei,
    model: modelOf(imei),
    baseLoad: random.real(40, 400),
    lat: random.real(41.5, 42.2, 5),
    long: random.real(-88.2, -87.5, 5),
    offsetMs: random.int(0, intervalMs / 1000 - 1) * 1000,
    checkIns: 0,
    nextEventId: firstEventId + random.int(0, 999),
    faultHold: 0,
  }));
  let sequence = 0;

  return {
    imeis,
    next() {
      const device = fleet[sequence % fleet.length]!;
      const message = checkIn(device, random, { startTime, intervalMs, eventsPerCheckIn, eventChance });
      return { imei: device.imei, sequence: sequence++, message };
    },
  };
}

function checkIn(
  device: Device, random: Random,
  { startTime, intervalMs, eventsPerCheckIn, eventChance }: { startTime: number; intervalMs: number; eventsPerCheckIn: number | undefined; eventChance: number },
): SimulatedMessage {
  const date = startTime + device.offsetMs + device.checkIns * intervalMs;
  device.checkIns++;

  const scenarios: Scenario[] = [];
  if (eventsPerCheckIn !== undefined) {
    let events = 0;
    while (events < eventsPerCheckIn) {
      const s = random.pick(eventsPerCheckIn - events >= 2 ? SCENARIOS : SINGLE_EVENT);
      scenarios.push(s);
      events += s === 'Fault <50 then TFault' ? 2 : 1;
    }
  } else if (random.chance(eventChance)) {
    scenarios.push(random.pick(SCENARIOS));
  }

  const load = device.baseLoad;
  const kinds: { type: string; prefault: number; fault: number; recover: number }[] = [];
  for (const s of scenarios) {
    switch (s) {
      case 'PFault': kinds.push({ type: 'PFault', prefault: random.real(load * 0.9, load * 1.1), fault: random.real(500, 2500), recover: 0 }); break;
      case 'TFault': kinds.push({ type: 'TFault', prefault: random.real(load * 0.9, load * 1.1), fault: random.real(400, 2000), recover: random.real(load * 0.8, load) }); break;
      case 'Fault <50 then TFault':
        kinds.push({ type: 'Fault <50', prefault: random.real(20, 49), fault: random.real(30, 49), recover: 0 });
        kinds.push({ type: 'TFault', prefault: random.real(20, 49), fault: random.real(300, 900), recover: random.real(load * 0.8, load) });
        break;
      case 'Current Reset': kinds.push({ type: 'Current Reset', prefault: 0, fault: random.real(load * 0.7, load), recover: 0 }); break;
      case 'Overcurrent': kinds.push({ type: 'Overcurrent', prefault: random.real(load, load * 1.5), fault: random.real(load * 2, load * 4), recover: 0 }); break;
    }
  }
  // Events lie before the check-in, in EventID order, never before the previous check-in (at most 20 s
  // apart, so a Fault <50 and its TFault stay well inside the 6 minute window of spec 3.4).
  const step = Math.min(20_000, Math.floor(intervalMs / (kinds.length + 1)));
  const events: SimulatedEvent[] = kinds.map((k, j) => ({
    EventID: device.nextEventId++,
    EventTimestamp: iso(date - (kinds.length - j) * step),
    EventType: k.type,
    PrefaultCurrent: k.prefault,
    FaultCurrent: k.fault,
    RecoverCurrent: k.recover,
  }));

  const last = scenarios[scenarios.length - 1];
  if (last === 'PFault') device.faultHold = random.int(0, 2);
  let reported = last ? REPORTED_FAULT[last] : 0;
  if (!last && device.faultHold > 0) { device.faultHold--; reported = 4; }
  const dead = reported === 4;

  // A daily load curve, lowest before dawn, with a little noise.
  const hourly = Array.from({ length: 24 }, (_, h) => {
    const curve = 0.8 + 0.25 * Math.sin((2 * Math.PI * (h - 9)) / 24);
    return Math.max(0, Math.round(load * curve * (0.97 + random.next() * 0.06) * 10) / 10);
  });
  const peak = Math.round(Math.max(...hourly) * random.real(1.05, 1.3, 2) * 10) / 10;
  const now1m = dead ? random.real(0, 0.8) : random.real(load * 0.9, load * 1.1);
  const battery = now1m < 5;

  return {
    device_data: {
      IMEINumber: device.imei,
      model: device.model,
      version: '4.2.1',
      date: iso(date),
      rssi: random.int(-105, -55),
      current_status: dead ? 0 : 1,
      master: 0,
      statusPacket: random.int(0, 0xffff).toString(16).toUpperCase().padStart(4, '0'),
      eventPacket: events.length ? random.int(1, 0xff).toString(16).toUpperCase().padStart(2, '0') : '00',
      LEDDuration: 4,
      LEDTimer: 8,
      BatteryMCU: random.real(3.3, 3.7, 2),
      BatteryLED: random.real(3.2, 3.65, 2),
      State: reported > 0 ? 1 : 0,
      FaultType: reported === 4 ? 2 : reported === 2 ? 1 : 0,
      BatteryOrLine: battery ? 1 : 0,
      FastMode: 0,
      Calibrated: 1,
      AverageCurrent1m: now1m,
      PrefaultCurrent: kinds[kinds.length - 1]?.prefault ?? random.real(load * 0.9, load * 1.1),
      AverageCurrent1h: random.real(load * 0.9, load * 1.1),
      PeakCurrent24h: peak,
      Tempfault_Reset_Hours: '2',
      Permfault_Reset_Hours: 8,
      SOTF: 0,
      Brightness: 'High',
      Current_Reset: 'Auto',
      Block_Reset: 0,
      Ongoing_fault: reported,
      channel: random.int(1, 16),
      gps_long: device.long,
      gps_lat: device.lat,
      Program: 'STD-7',
      ConnectTime: random.int(5, 40),
      Temperature: random.real(-10, 35),
    },
    events,
    currents: {
      PeakCurrent: peak,
      PeakCurrentTimestamp: iso(date - random.int(1, 23) * 3_600_000 - random.int(0, 59) * 60_000),
      HourlyAverages: hourly,
    },
    dm1_device: false,
  };
}

/**
 * A 15-digit IMEI: `prefix`, the index zero-padded to 14 digits, then the Luhn check digit (as real IMEIs).
 *
 * @example generateImei('35899', 0) // '358990000000005'
 */
export function generateImei(prefix: string, index: number): string {
  if (!/^[0-9]{0,13}$/.test(prefix)) throw new RangeError(`imeiPrefix must be 0 to 13 digits, got "${prefix}"`);
  const digits = prefix + String(index).padStart(14 - prefix.length, '0');
  if (digits.length !== 14) throw new RangeError(`device index ${index} does not fit after prefix "${prefix}"`);
  return digits + luhnDigit(digits);
}

function luhnDigit(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    // From the right of the final 15-digit number, every second digit (starting next to the check digit) doubles.
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) { d *= 2; if (d > 9) d -= 9; }
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

/** ISO 8601 UTC as devices send it: whole seconds without a fraction, milliseconds only when there are some. */
function iso(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}
