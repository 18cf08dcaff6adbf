// Applying the point map to an Outstation: sizes and per-point classes/deadbands, device snapshots, and the
// heartbeat (analog 0, 0..100 wrapping, one step a second). Pure apart from mutating the outstation.
import { Flags } from '../objects/table.js';
import type { Outstation } from '../outstation/outstation.js';
import { ANALOG_POINTS, HEARTBEAT_INDEX, analogIndex, devicePoints, pointCounts } from './point-map.js';
import type { DeviceSnapshot } from './point-map.js';

/** Grows the outstation to hold slots 0..maxSlot; new points get their class and deadband. */
export function sizeOutstation(o: Outstation, maxSlot: number, analogOnly: boolean): void {
  const counts = pointCounts(maxSlot, analogOnly);
  const oldAnalog = o.db.count('analog');
  o.definePoints('binary', counts.binary, { eventClass: 1 });
  o.definePoints('analog', counts.analog, { eventClass: 2 });
  o.db.configure('analog', HEARTBEAT_INDEX, { eventClass: 0 });
  for (let slot = Math.max(0, Math.floor((oldAnalog - 1) / 8)); slot <= maxSlot; slot++) {
    for (const p of ANALOG_POINTS) o.db.configure('analog', analogIndex(slot, p.k), { eventClass: p.eventClass, deadband: p.deadband ?? 0 });
  }
}

/** Stores a device's values; returns how many events that produced. */
export function applySnapshot(o: Outstation, d: DeviceSnapshot, nowMs: number, offlineAfterHours: number, analogOnly: boolean): number {
  let events = 0;
  for (const u of devicePoints(d, nowMs, offlineAfterHours, analogOnly)) if (o.update(u.type, u.index, u.value)) events++;
  return events;
}

export function heartbeatValue(nowMs: number, startMs: number): number {
  return Math.floor((nowMs - startMs) / 1000) % 101;
}

export function applyHeartbeat(o: Outstation, nowMs: number, startMs: number): void {
  o.update('analog', HEARTBEAT_INDEX, { flags: Flags.ONLINE, value: heartbeatValue(nowMs, startMs), time: nowMs });
}
