// Applying the point model to an integration's station: device and power line samples with their deadbands
// (points/), the heartbeat. Pure apart from mutating the outstation.
import type { ClockLimits } from '../../domain/checkin-clock.js';
import { DEVICE_ANALOG_POINTS, deviceSamples, type DeviceSnapshot, type PointSample } from '../../points/device-points.js';
import { powerLineSamples, type PowerLineSnapshot } from '../../points/power-lines.js';
import type { SnapshotOrigin } from '../../points/feed.js';
import type { Iec104Outstation } from '../outstation.js';

const deviceDeadband = (s: PointSample): number => (s.kind === 'analog' ? DEVICE_ANALOG_POINTS.find((p) => p.k === s.k)?.deadband ?? 0 : 0);

/** `origin`: the stored check-in the snapshot comes from (test-fault timelines). */
export function applyDevice(o: Iec104Outstation, d: DeviceSnapshot, nowMs: number, clock: ClockLimits, analogOnly: boolean, origin?: SnapshotOrigin): number {
  return o.apply(deviceSamples(d, nowMs, clock, analogOnly), deviceDeadband, origin);
}

/** Incident points: identifiers and counts, every change an event. */
export function applyPowerLine(o: Iec104Outstation, l: PowerLineSnapshot, nowMs: number, analogOnly: boolean): number {
  return o.apply(powerLineSamples(l, nowMs, analogOnly), () => 0);
}
