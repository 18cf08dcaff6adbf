// The point map of SPEC-DECISIONS "DNP3 outstation": device slot s has binary inputs 8s+k and analog inputs
// 1+8s+k; analog 0 is the heartbeat. Pure: device snapshots in, point values out. The same rows feed the
// outstation's database and GET /api/dnp3/pointMap, so what the master is told is what it gets.
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

const has = (codes: number[]) => (aof: number | null) => aof !== null && codes.includes(aof);

export const BINARY_POINTS: readonly (PointDefinition & { test: (d: DeviceSnapshot, offline: boolean) => boolean })[] = [
  { k: 0, name: 'fault active', eventClass: 1, test: (d) => (d.actualOngoingFault ?? 0) > 0 },
  { k: 1, name: 'permanent fault', eventClass: 1, test: (d) => has([4, 5])(d.actualOngoingFault) },
  { k: 2, name: 'temporary fault', eventClass: 1, test: (d) => has([2, 11])(d.actualOngoingFault) },
  { k: 3, name: 'over current', eventClass: 1, test: (d) => has([3, 6])(d.actualOngoingFault) },
  { k: 4, name: 'current reset', eventClass: 1, test: (d) => has([10])(d.actualOngoingFault) },
  { k: 5, name: 'low battery', eventClass: 1, test: (d) => has([402])(d.actualOngoingFault) },
  { k: 6, name: 'communication lost', eventClass: 1, test: (d, offline) => offline || has([400, 401])(d.actualOngoingFault) },
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

export const binaryIndex = (slot: number, k: number): number => 8 * slot + k;
export const analogIndex = (slot: number, k: number): number => 1 + 8 * slot + k;
export const HEARTBEAT_INDEX = 0;

export interface PointUpdate {
  type: 'binary' | 'analog';
  index: number;
  value: PointValue;
}

/**
 * Point values of one device. A device that never checked in keeps RESTART (no real value yet); a value the
 * device did not report is COMM_LOST-free but not ONLINE. Timestamps are the device's own.
 */
export function devicePoints(d: DeviceSnapshot, nowMs: number, offlineAfterHours: number, analogOnly = false): PointUpdate[] {
  const out: PointUpdate[] = [];
  if (d.date === null) return out;
  const offline = nowMs - d.date > offlineAfterHours * 3_600_000;
  if (!analogOnly) {
    for (const p of BINARY_POINTS) {
      out.push({ type: 'binary', index: binaryIndex(d.slot, p.k), value: { flags: Flags.ONLINE, value: p.test(d, offline) ? 1 : 0, time: d.date } });
    }
  }
  for (const p of ANALOG_POINTS) {
    const v = p.value(d);
    const time = p.k === 3 && d.faultTime !== null ? d.faultTime : d.date;
    out.push({ type: 'analog', index: analogIndex(d.slot, p.k), value: { flags: v === null ? 0 : Flags.ONLINE, value: v ?? 0, time } });
  }
  return out;
}

export interface PointMapRow {
  type: 'binary' | 'analog';
  index: number;
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

export function pointMapRows(devices: readonly Pick<DeviceSnapshot, 'imei' | 'slot' | 'name'>[], analogOnly = false): PointMapRow[] {
  const rows: PointMapRow[] = [{
    type: 'analog', index: HEARTBEAT_INDEX, slot: null, imei: null, deviceName: null, point: 'heartbeat (0..100, +1 per second)',
    eventClass: 0, deadband: null, unit: null, staticVariation: 'g30v5', eventVariation: null,
  }];
  const sorted = [...devices].sort((a, b) => a.slot - b.slot);
  for (const d of sorted) {
    if (!analogOnly) {
      for (const p of BINARY_POINTS) {
        rows.push({ type: 'binary', index: binaryIndex(d.slot, p.k), slot: d.slot, imei: d.imei, deviceName: d.name, point: p.name, eventClass: p.eventClass, deadband: null, unit: null, staticVariation: 'g1v2', eventVariation: 'g2v2' });
      }
    }
    for (const p of ANALOG_POINTS) {
      rows.push({ type: 'analog', index: analogIndex(d.slot, p.k), slot: d.slot, imei: d.imei, deviceName: d.name, point: p.name, eventClass: p.eventClass, deadband: p.deadband ?? null, unit: p.unit ?? null, staticVariation: 'g30v5', eventVariation: 'g32v7' });
    }
  }
  return rows.sort((a, b) => (a.type === b.type ? a.index - b.index : a.type === 'binary' ? -1 : 1));
}

const CSV_COLUMNS: (keyof PointMapRow)[] = ['type', 'index', 'slot', 'imei', 'deviceName', 'point', 'eventClass', 'deadband', 'unit', 'staticVariation', 'eventVariation'];

function csvCell(v: unknown): string {
  const s = v === null || v === undefined ? '' : String(v);
  // Quote and neutralise formula prefixes: engineers open this in spreadsheets.
  const safe = /^[=+\-@]/.test(s) ? `'${s}` : s;
  return /[",\n\r']/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function pointMapCsv(rows: readonly PointMapRow[]): string {
  return [CSV_COLUMNS.join(','), ...rows.map((r) => CSV_COLUMNS.map((c) => csvCell(r[c])).join(','))].join('\r\n') + '\r\n';
}

/** Point counts of an outstation whose highest slot is `maxSlot` (-1: no devices). */
export function pointCounts(maxSlot: number, analogOnly = false): { binary: number; analog: number } {
  return { binary: analogOnly ? 0 : 8 * (maxSlot + 1), analog: 1 + 8 * (maxSlot + 1) };
}
