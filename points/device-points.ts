// The protocol-neutral point model (docs/decisions.md#one-point-model): per device slot, 8 binaries and 8
// analogs, each with its value, quality and the device's own timestamp. DNP3 (dnp3/data/point-map.ts) and
// IEC 104 (iec104/data/point-map.ts) are two encodings of these samples: they decide addresses, flags and
// event classes, never what a point means. Pure: device snapshots in, samples out.
import { isOffline, type ClockLimits } from '../domain/checkin-clock.js';
import { inCodeClass } from '../domain/ongoing-fault-codes.js';

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

export type PointKind = 'binary' | 'analog';

/** One point of a slot: k is its place among the slot's points of its kind (0..POINTS_PER_SLOT-1). */
export interface NeutralPoint {
  k: number;
  name: string;
  /** Change that makes an event (analogs); binaries: every change. */
  deadband?: number;
  unit?: string;
}

/** Points of each kind per slot: the layouts of both protocols reserve 8, used or not. */
export const POINTS_PER_SLOT = 8;

export const DEVICE_BINARY_POINTS: readonly (NeutralPoint & { test: (d: DeviceSnapshot, offline: boolean) => boolean })[] = [
  { k: 0, name: 'fault active', test: (d) => (d.actualOngoingFault ?? 0) > 0 },
  { k: 1, name: 'permanent fault', test: (d) => inCodeClass('permanent', d.actualOngoingFault) },
  { k: 2, name: 'temporary fault', test: (d) => inCodeClass('temporary', d.actualOngoingFault) },
  { k: 3, name: 'over current', test: (d) => inCodeClass('overCurrent', d.actualOngoingFault) },
  { k: 4, name: 'current reset', test: (d) => inCodeClass('currentReset', d.actualOngoingFault) },
  { k: 5, name: 'low battery', test: (d) => inCodeClass('lowBattery', d.actualOngoingFault) },
  { k: 6, name: 'communication lost', test: (d, offline) => offline || inCodeClass('noCommunication', d.actualOngoingFault) },
  { k: 7, name: 'line powered', test: (d) => d.batteryOrLine === 0 },
];

// Deadbands: a fault code change is always an event; currents move by noise, so 1 A; battery 0.05 V; 1 degree.
export const DEVICE_ANALOG_POINTS: readonly (NeutralPoint & { value: (d: DeviceSnapshot) => number | null })[] = [
  { k: 0, name: 'ActualOngoingFault code', deadband: 0, value: (d) => d.actualOngoingFault },
  { k: 1, name: 'AverageCurrent1m', deadband: 1, unit: 'A', value: (d) => d.averageCurrent1m },
  { k: 2, name: 'PrefaultCurrent', deadband: 1, unit: 'A', value: (d) => d.prefaultCurrent },
  { k: 3, name: 'last FaultCurrent', deadband: 1, unit: 'A', value: (d) => d.faultCurrent },
  { k: 4, name: 'PeakCurrent24h', deadband: 1, unit: 'A', value: (d) => d.peakCurrent24h },
  { k: 5, name: 'AverageCurrent1h', deadband: 1, unit: 'A', value: (d) => d.averageCurrent1h },
  { k: 6, name: 'BatteryMCU', deadband: 0.05, unit: 'V', value: (d) => d.batteryMcu },
  { k: 7, name: 'Temperature', deadband: 1, unit: 'C', value: (d) => d.temperature },
];

/** One point's value as the model knows it; each protocol turns it into its own flags and address. */
export interface PointSample {
  kind: PointKind;
  /** The organisation-wide slot (banks.ts says which bank holds it). */
  slot: number;
  k: number;
  value: number;
  /** Device time (ms) the value is from. */
  time: number;
  /** False when the device did not report this value (DNP3: no ONLINE flag; 104: IV). */
  reported: boolean;
  /** The device is past its check-in window (domain/checkin-clock.ts); 104 marks its values not topical (NT). */
  offline: boolean;
}

/**
 * Samples of one device. A device that never checked in has none (its points keep their start-up state).
 * Timestamps are the device's own; the fault current carries the time of the event that reported it.
 */
export function deviceSamples(d: DeviceSnapshot, nowMs: number, clock: ClockLimits, analogOnly = false): PointSample[] {
  const out: PointSample[] = [];
  if (d.date === null) return out;
  // Communication lost by the one rule (domain/checkin-clock.ts) the alarm, device-summary and the portal use.
  const offline = isOffline(d.date, d.expectedIntervalS ?? null, nowMs, clock);
  if (!analogOnly) {
    for (const p of DEVICE_BINARY_POINTS) out.push({ kind: 'binary', slot: d.slot, k: p.k, value: p.test(d, offline) ? 1 : 0, time: d.date, reported: true, offline });
  }
  for (const p of DEVICE_ANALOG_POINTS) {
    const v = p.value(d);
    const time = p.k === 3 && d.faultTime !== null ? d.faultTime : d.date;
    out.push({ kind: 'analog', slot: d.slot, k: p.k, value: v ?? 0, time, reported: v !== null, offline });
  }
  return out;
}
