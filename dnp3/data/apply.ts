// Applying the point map to an organisation's outstations, one per bank (point-map.ts): sizes and per-point
// classes/deadbands, device snapshots to their bank, and the heartbeat (analog 0 of every bank, 0..100
// wrapping, one step a second). Pure apart from mutating the outstations and the bank list.
import type { ClockLimits } from '../../domain/checkin-clock.js';
import { Flags } from '../objects/table.js';
import { Outstation } from '../outstation/outstation.js';
import type { EventOrigin } from '../outstation/database.js';
import { ANALOG_POINTS, BANK_SLOTS, HEARTBEAT_INDEX, analogIndex, bankCount, bankOf, devicePoints, localSlot, pointCounts } from './point-map.js';
import type { DeviceSnapshot } from './point-map.js';
import { heartbeatValue } from '../../points/feed.js';

/** Grows one bank's outstation to hold local slots 0..maxLocalSlot; new points get their class and deadband. */
export function sizeOutstation(o: Outstation, maxLocalSlot: number, analogOnly: boolean): void {
  const counts = pointCounts(maxLocalSlot, analogOnly);
  const oldAnalog = o.db.count('analog');
  o.definePoints('binary', counts.binary, { eventClass: 1 });
  o.definePoints('analog', counts.analog, { eventClass: 2 });
  o.db.configure('analog', HEARTBEAT_INDEX, { eventClass: 0 });
  for (let slot = Math.max(0, Math.floor((oldAnalog - 1) / 8)); slot <= maxLocalSlot; slot++) {
    for (const p of ANALOG_POINTS) o.db.configure('analog', analogIndex(slot, p.k), { eventClass: p.eventClass, deadband: p.deadband ?? 0 });
  }
}

/**
 * Grows the bank list (index = bank) to hold slots 0..maxSlot: new banks come from `create`, full banks hold
 * BANK_SLOTS slots, the last one up to the highest slot. Bank 0 always exists (the heartbeat). Banks never
 * shrink: slots are never reused. Returns the number of banks created.
 */
export function sizeBanks(banks: Outstation[], maxSlot: number, analogOnly: boolean, create: () => Outstation = () => new Outstation()): number {
  const count = bankCount(maxSlot);
  let created = 0;
  while (banks.length < count) { banks.push(create()); created++; }
  for (let b = 0; b < count; b++) {
    const last = b < count - 1 ? BANK_SLOTS - 1 : maxSlot < 0 ? -1 : localSlot(maxSlot);
    sizeOutstation(banks[b]!, last, analogOnly);
  }
  return created;
}

/**
 * Stores a device's values in its bank's outstation; returns how many events that produced. `origin`: the
 * stored check-in the values come from, when it is new (its events are then timed to the master's confirm).
 */
export function applySnapshot(banks: readonly Outstation[], d: DeviceSnapshot, nowMs: number, clock: ClockLimits, analogOnly: boolean, origin?: EventOrigin): number {
  const o = banks[bankOf(d.slot)];
  if (!o) throw new RangeError(`slot ${d.slot} is in bank ${bankOf(d.slot)}, but only ${banks.length} bank(s) exist (sizeBanks first)`);
  let events = 0;
  for (const u of devicePoints(d, nowMs, clock, analogOnly)) if (o.update(u.type, u.index, u.value, origin)) events++;
  return events;
}

export { heartbeatValue };

/** The same heartbeat in every bank, so a master polling any one address sees the feed is alive. */
export function applyHeartbeat(banks: readonly Outstation[], nowMs: number, startMs: number): void {
  const value = { flags: Flags.ONLINE, value: heartbeatValue(nowMs, startMs), time: nowMs };
  for (const o of banks) o.update('analog', HEARTBEAT_INDEX, value);
}
