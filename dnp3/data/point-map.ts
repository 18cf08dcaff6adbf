// The point map of docs/decisions.md#dnp3-outstation: device slot s has binary inputs 8s+k and analog inputs
// 1+8s+k; analog 0 is the heartbeat. Pure: device snapshots in, point values out. The same rows feed the
// outstation's database and GET /api/dnp3/pointMap, so what the master is told is what it gets.
//
// Banks: DNP3 masters such as opendnp3 index points with 16 bits, so one logical outstation holds at most
// 8,191 slots of this layout. An organisation's slots are split into banks of BANK_SLOTS consecutive slots;
// bank b is its own logical outstation at link address `outstationAddress + b` (multi-drop on the same
// connection) and applies the layout to the slot's local number (s mod BANK_SLOTS), with its own heartbeat at
// analog 0. Under BANK_SLOTS devices there is bank 0 only: exactly the map of docs/decisions.md#dnp3-outstation.
import { isOffline, type ClockLimits } from '../../domain/checkin-clock.js';
import { inCodeClass } from '../../domain/ongoing-fault-codes.js';
import { Flags } from '../objects/table.js';
import type { PointValue } from '../objects/codec.js';
import type { EventClass } from '../outstation/database.js';

/** The latest stored state of one device, as the feed reads it from Postgres. */
export interface DeviceSnapshot {
  imei: string;
  slot: number;
  name: string | null;
  /** Device time of the latest check-in (ms), null if it never checked in. */
  date: number | null;
  /** The learned check-in interval (s, checkin_clock); null or absent: too little history, the ceiling alone judges. */
  expectedIntervalS?: number | null;
  actualOngoingFault: number | null;
  batteryOrLine: number | null;
  averageCurrent1m: number | null;
  prefaultCurrent: number | null;
  faultCurrent: number | null;
  /** Device time of the event that carried faultCurrent. */
  faultTime: number | null;
  peakCurrent24h: number | null;
  averageCurrent1h: number | null;
  batteryMcu: number | null;
  temperature: number | null;
}

export interface PointDefinition {
  k: number;
  name: string;
  eventClass: EventClass;
  deadband?: number;
  unit?: string;
}

export const BINARY_POINTS: readonly (PointDefinition & { test: (d: DeviceSnapshot, offline: boolean) => boolean })[] = [
  { k: 0, name: 'fault active', eventClass: 1, test: (d) => (d.actualOngoingFault ?? 0) > 0 },
  { k: 1, name: 'permanent fault', eventClass: 1, test: (d) => inCodeClass('permanent', d.actualOngoingFault) },
  { k: 2, name: 'temporary fault', eventClass: 1, test: (d) => inCodeClass('temporary', d.actualOngoingFault) },
  { k: 3, name: 'over current', eventClass: 1, test: (d) => inCodeClass('overCurrent', d.actualOngoingFault) },
  { k: 4, name: 'current reset', eventClass: 1, test: (d) => inCodeClass('currentReset', d.actualOngoingFault) },
  { k: 5, name: 'low battery', eventClass: 1, test: (d) => inCodeClass('lowBattery', d.actualOngoingFault) },
  { k: 6, name: 'communication lost', eventClass: 1, test: (d, offline) => offline || inCodeClass('noCommunication', d.actualOngoingFault) },
  { k: 7, name: 'line powered', eventClass: 1, test: (d) => d.batteryOrLine === 0 },
];

// Deadbands: a fault code change is always an event; currents move by noise, so 1 A; battery 0.05 V; 1 degree.
export const ANALOG_POINTS: readonly (PointDefinition & { value: (d: DeviceSnapshot) => number | null })[] = [
  { k: 0, name: 'ActualOngoingFault code', eventClass: 2, deadband: 0, value: (d) => d.actualOngoingFault },
  { k: 1, name: 'AverageCurrent1m', eventClass: 2, deadband: 1, unit: 'A', value: (d) => d.averageCurrent1m },
  { k: 2, name: 'PrefaultCurrent', eventClass: 2, deadband: 1, unit: 'A', value: (d) => d.prefaultCurrent },
  { k: 3, name: 'last FaultCurrent', eventClass: 2, deadband: 1, unit: 'A', value: (d) => d.faultCurrent },
  { k: 4, name: 'PeakCurrent24h', eventClass: 2, deadband: 1, unit: 'A', value: (d) => d.peakCurrent24h },
  { k: 5, name: 'AverageCurrent1h', eventClass: 2, deadband: 1, unit: 'A', value: (d) => d.averageCurrent1h },
  { k: 6, name: 'BatteryMCU', eventClass: 2, deadband: 0.05, unit: 'V', value: (d) => d.batteryMcu },
  { k: 7, name: 'Temperature', eventClass: 2, deadband: 1, unit: 'C', value: (d) => d.temperature },
];

/** Slots per bank: a round number below the 16-bit limit (8,191), so maps stay readable (bank 1 = slots 8000..15999). */
export const BANK_SLOTS = 8000;
/** Link addresses 0xFFF0..0xFFFF are reserved (broadcast, self address). */
export const MAX_OUTSTATION_ADDRESS = 0xffef;

export const bankOf = (slot: number): number => Math.floor(slot / BANK_SLOTS);
export const localSlot = (slot: number): number => slot % BANK_SLOTS;
/** Number of banks for an organisation whose highest slot is `maxSlot` (-1: no devices; bank 0 still exists). */
export const bankCount = (maxSlot: number): number => (maxSlot < 0 ? 1 : bankOf(maxSlot) + 1);
/** Link address of bank `bank`: the integration's outstation address, then the next ones. */
export function bankAddress(outstationAddress: number, bank: number): number {
  const a = outstationAddress + bank;
  if (a > MAX_OUTSTATION_ADDRESS) throw new RangeError(`bank ${bank} would need link address ${a}, past ${MAX_OUTSTATION_ADDRESS}`);
  return a;
}

/** Indexes within a bank: `slot` is the LOCAL slot (localSlot(s)); the global slot's bank gives the outstation. */
export const binaryIndex = (slot: number, k: number): number => 8 * slot + k;
export const analogIndex = (slot: number, k: number): number => 1 + 8 * slot + k;
export const HEARTBEAT_INDEX = 0;

export interface PointUpdate {
  type: 'binary' | 'analog';
  index: number;
  value: PointValue;
}

/**
 * Point values of one device, indexed within its bank (bankOf(d.slot) says which outstation). A device that never checked in keeps RESTART (no real value yet); a value the
 * device did not report is COMM_LOST-free but not ONLINE. Timestamps are the device's own.
 */
export function devicePoints(d: DeviceSnapshot, nowMs: number, clock: ClockLimits, analogOnly = false): PointUpdate[] {
  const out: PointUpdate[] = [];
  if (d.date === null) return out;
  // Communication lost by the one rule (domain/checkin-clock.ts) the alarm, device-summary and the portal use.
  const offline = isOffline(d.date, d.expectedIntervalS ?? null, nowMs, clock);
  const local = localSlot(d.slot);
  if (!analogOnly) {
    for (const p of BINARY_POINTS) {
      out.push({ type: 'binary', index: binaryIndex(local, p.k), value: { flags: Flags.ONLINE, value: p.test(d, offline) ? 1 : 0, time: d.date } });
    }
  }
  for (const p of ANALOG_POINTS) {
    const v = p.value(d);
    const time = p.k === 3 && d.faultTime !== null ? d.faultTime : d.date;
    out.push({ type: 'analog', index: analogIndex(local, p.k), value: { flags: v === null ? 0 : Flags.ONLINE, value: v ?? 0, time } });
  }
  return out;
}

export interface PointMapRow {
  /** The bank (logical outstation) holding the point, and its link address. */
  bank: number;
  outstationAddress: number;
  type: 'binary' | 'analog';
  /** Index within the bank's outstation. */
  index: number;
  /** The device's organisation-wide slot. */
  slot: number | null;
  imei: string | null;
  deviceName: string | null;
  point: string;
  eventClass: EventClass;
  deadband: number | null;
  unit: string | null;
  staticVariation: string;
  eventVariation: string | null;
}

export interface PointMapOptions {
  analogOnly?: boolean;
  /** The integration's outstation address: bank 0's link address (default 10). */
  outstationAddress?: number;
  /** The organisation's highest slot, deleted devices included (the outstation sizes its banks by it). */
  maxSlot?: number;
}

export interface PointMapBank {
  bank: number;
  outstationAddress: number;
  firstSlot: number;
  lastSlot: number;
  binaryPoints: number;
  analogPoints: number;
}

/** The banks an organisation's outstation serves, with their addresses, slot ranges and point counts. */
export function pointMapBanks(maxSlot: number, opts: Omit<PointMapOptions, 'maxSlot'> = {}): PointMapBank[] {
  const base = opts.outstationAddress ?? 10;
  return Array.from({ length: bankCount(maxSlot) }, (_, bank) => {
    const lastLocal = bank < bankOf(maxSlot) ? BANK_SLOTS - 1 : maxSlot < 0 ? -1 : localSlot(maxSlot);
    const counts = pointCounts(lastLocal, opts.analogOnly);
    return {
      bank, outstationAddress: bankAddress(base, bank), firstSlot: bank * BANK_SLOTS, lastSlot: bank * BANK_SLOTS + lastLocal,
      binaryPoints: counts.binary, analogPoints: counts.analog,
    };
  });
}

/** Rows sorted by bank, then binary before analog, then index; a heartbeat row heads every bank's analogs. */
export function pointMapRows(devices: readonly Pick<DeviceSnapshot, 'imei' | 'slot' | 'name'>[], opts: PointMapOptions = {}): PointMapRow[] {
  const base = opts.outstationAddress ?? 10;
  const maxSlot = devices.reduce((m, d) => Math.max(m, d.slot), opts.maxSlot ?? -1);
  const rows: PointMapRow[] = [];
  for (let bank = 0; bank < bankCount(maxSlot); bank++) {
    rows.push({
      bank, outstationAddress: bankAddress(base, bank), type: 'analog', index: HEARTBEAT_INDEX, slot: null, imei: null, deviceName: null,
      point: 'heartbeat (0..100, +1 per second)', eventClass: 0, deadband: null, unit: null, staticVariation: 'g30v5', eventVariation: null,
    });
  }
  const sorted = [...devices].sort((a, b) => a.slot - b.slot);
  for (const d of sorted) {
    const bank = bankOf(d.slot);
    const where = { bank, outstationAddress: bankAddress(base, bank) };
    const local = localSlot(d.slot);
    if (!opts.analogOnly) {
      for (const p of BINARY_POINTS) {
        rows.push({ ...where, type: 'binary', index: binaryIndex(local, p.k), slot: d.slot, imei: d.imei, deviceName: d.name, point: p.name, eventClass: p.eventClass, deadband: null, unit: null, staticVariation: 'g1v2', eventVariation: 'g2v2' });
      }
    }
    for (const p of ANALOG_POINTS) {
      rows.push({ ...where, type: 'analog', index: analogIndex(local, p.k), slot: d.slot, imei: d.imei, deviceName: d.name, point: p.name, eventClass: p.eventClass, deadband: p.deadband ?? null, unit: p.unit ?? null, staticVariation: 'g30v5', eventVariation: 'g32v7' });
    }
  }
  return rows.sort((a, b) => a.bank - b.bank || (a.type === b.type ? a.index - b.index : a.type === 'binary' ? -1 : 1));
}

const CSV_COLUMNS: (keyof PointMapRow)[] = ['outstationAddress', 'bank', 'type', 'index', 'slot', 'imei', 'deviceName', 'point', 'eventClass', 'deadband', 'unit', 'staticVariation', 'eventVariation'];

function csvCell(v: unknown): string {
  const s = v === null || v === undefined ? '' : String(v);
  // Quote and neutralise formula prefixes: engineers open this in spreadsheets.
  const safe = /^[=+\-@]/.test(s) ? `'${s}` : s;
  return /[",\n\r']/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function pointMapCsv(rows: readonly PointMapRow[]): string {
  return [CSV_COLUMNS.join(','), ...rows.map((r) => CSV_COLUMNS.map((c) => csvCell(r[c])).join(','))].join('\r\n') + '\r\n';
}

/** Point counts of one bank's outstation whose highest local slot is `maxSlot` (-1: no devices). */
export function pointCounts(maxSlot: number, analogOnly = false): { binary: number; analog: number } {
  if (maxSlot >= BANK_SLOTS) throw new RangeError(`local slot ${maxSlot}: a bank holds ${BANK_SLOTS} slots`);
  return { binary: analogOnly ? 0 : 8 * (maxSlot + 1), analog: 1 + 8 * (maxSlot + 1) };
}
