// Applying the point model to an integration's station: device and power line samples with their deadbands
// (points/), the heartbeat. Pure apart from mutating the outstation.
import type { ClockLimits } from '../../domain/checkin-clock.js';
import { DEVICE_ANALOG_POINTS, deviceSamples, type DeviceSnapshot, type PointSample } from '../../points/device-points.js';
import { powerLineSamples, type PowerLineSnapshot } from '../../points/power-lines.js';
import type { SnapshotOrigin } from '../../points/feed.js';

/** What the samples go to: the station's outstation (../outstation.ts), which imports data/, so it is named by
 * what it does rather than imported back (lint/floors.js). */
export interface PointSink {
  apply(samples: readonly PointSample[], deadband: (s: PointSample) => number, origin?: SnapshotOrigin): number;
}

const deviceDeadband = (s: PointSample): number => (s.kind === 'analog' ? DEVICE_ANALOG_POINTS.find((p) => p.k === s.k)?.deadband ?? 0 : 0);

/** `origin`: the stored check-in the snapshot comes from (test-fault timelines). */
export function applyDevice(o: PointSink, d: DeviceSnapshot, nowMs: number, clock: ClockLimits, analogOnly: boolean, origin?: SnapshotOrigin): number {
  return o.apply(deviceSamples(d, nowMs, clock, analogOnly), deviceDeadband, origin);
}

/** Incident points: identifiers and counts, every change an event. */
export function applyPowerLine(o: PointSink, l: PowerLineSnapshot, nowMs: number, analogOnly: boolean): number {
  return o.apply(powerLineSamples(l, nowMs, analogOnly), () => 0);
}
