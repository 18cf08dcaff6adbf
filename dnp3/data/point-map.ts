// The DNP3 encoding of the point model (points/, docs/decisions.md#one-point-model) per
// docs/decisions.md#dnp3-outstation: device slot s has binary inputs 8s+k and analog inputs 1+8s+k; analog 0
// is the heartbeat. Pure: samples in, DNP3 points out. The same rows feed the outstation's database and
// GET /api/dnp3/pointMap, so what the master is told is what it gets.
//
// Banks (points/banks.ts): DNP3 masters such as opendnp3 index points with 16 bits, so one logical outstation
// holds at most 8,191 slots of this layout. Bank b is its own logical outstation at link address
// `outstationAddress + b` (multi-drop on the same connection) and applies the layout to the slot's local
// number (s mod BANK_SLOTS), with its own heartbeat at analog 0.
import type { ClockLimits } from '../../domain/checkin-clock.js';
import { bankCount, bankOf, BANK_SLOTS, lastLocalSlot, localSlot } from '../../points/banks.js';
import { DEVICE_ANALOG_POINTS, DEVICE_BINARY_POINTS, deviceSamples, type DeviceSnapshot, type NeutralPoint, type PointSample } from '../../points/device-points.js';
import { pointMapCsvOf } from '../../points/organisation-map.js';
import { Flags } from '../objects/table.js';
import type { PointValue } from '../objects/codec.js';
import type { EventClass } from '../outstation/database.js';

export type { DeviceSnapshot } from '../../points/device-points.js';
export { BANK_SLOTS, bankCount, bankOf, localSlot } from '../../points/banks.js';

export interface PointDefinition extends NeutralPoint {
  eventClass: EventClass;
}

/** DNP3's event classes: binaries class 1, analogs class 2 (the heartbeat none). */
export const BINARY_CLASS: EventClass = 1;
export const ANALOG_CLASS: EventClass = 2;

export const BINARY_POINTS = DEVICE_BINARY_POINTS.map((p) => ({ ...p, eventClass: BINARY_CLASS }));
export const ANALOG_POINTS = DEVICE_ANALOG_POINTS.map((p) => ({ ...p, eventClass: ANALOG_CLASS }));

/** Link addresses 0xFFF0..0xFFFF are reserved (broadcast, self address). */
export const MAX_OUTSTATION_ADDRESS = 0xffef;

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

/** One sample as a DNP3 point of its bank: ONLINE when reported (no value: no flag), the device's time. */
export function dnp3Point(s: PointSample): PointUpdate {
  const local = localSlot(s.slot);
  return {
    type: s.kind, index: s.kind === 'binary' ? binaryIndex(local, s.k) : analogIndex(local, s.k),
    value: { flags: s.reported ? Flags.ONLINE : 0, value: s.value, time: s.time },
  };
}

/**
 * Point values of one device, indexed within its bank (bankOf(d.slot) says which outstation). A device that never checked in keeps RESTART (no real value yet); a value the
 * device did not report is COMM_LOST-free but not ONLINE. Timestamps are the device's own.
 */
export function devicePoints(d: DeviceSnapshot, nowMs: number, clock: ClockLimits, analogOnly = false): PointUpdate[] {
  return deviceSamples(d, nowMs, clock, analogOnly).map(dnp3Point);
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
    const lastLocal = lastLocalSlot(bank, maxSlot);
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

export function pointMapCsv(rows: readonly PointMapRow[]): string {
  return pointMapCsvOf(CSV_COLUMNS, rows);
}

/** Point counts of one bank's outstation whose highest local slot is `maxSlot` (-1: no devices). */
export function pointCounts(maxSlot: number, analogOnly = false): { binary: number; analog: number } {
  if (maxSlot >= BANK_SLOTS) throw new RangeError(`local slot ${maxSlot}: a bank holds ${BANK_SLOTS} slots`);
  return { binary: analogOnly ? 0 : 8 * (maxSlot + 1), analog: 1 + 8 * (maxSlot + 1) };
}
