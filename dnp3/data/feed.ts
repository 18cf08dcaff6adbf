// Keeps one organisation's outstations (one per bank of BANK_SLOTS slots, point-map.ts) in step with Postgres:
// the feed of the point model (points/feed.ts: LISTEN/NOTIFY, poll fallback, full reloads) with the DNP3
// encoding as its target. A bank's outstation is created when the highest slot first reaches it; sessions
// already connected pick it up from the same `banks` array on their next frame or tick.
import { PointFeed, type PointFeedOptions } from '../../points/feed.js';
import type { Outstation } from '../outstation/outstation.js';
import { applyHeartbeat, applySnapshot, sizeBanks } from './apply.js';
import { applyPowerLines } from './power-lines.js';

export { originOf } from '../../points/feed.js';

export interface FeedOptions extends PointFeedOptions {
  /** The organisation's outstations, index = bank; the feed appends new banks (live: sessions read it too). */
  banks: Outstation[];
  /** Makes a new bank's outstation (default: `new Outstation()`). */
  createOutstation?: () => Outstation;
  analogOnly: boolean;
}

export class Dnp3Feed extends PointFeed {
  constructor(opts: FeedOptions) {
    const { banks, analogOnly } = opts;
    super(opts, {
      size: (maxSlot) => { sizeBanks(banks, maxSlot, analogOnly, opts.createOutstation); },
      device: (s, now, clock, origin) => applySnapshot(banks, s, now, clock, analogOnly, origin),
      powerLines: (lines, now) => applyPowerLines(banks, lines, now, analogOnly),
      heartbeat: (now, startMs) => applyHeartbeat(banks, now, startMs),
    });
  }
}
