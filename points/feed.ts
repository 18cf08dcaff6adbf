// Keeps one organisation's points in step with Postgres, for any encoding of the point model (DNP3 banks of
// outstations, an IEC 104 station). LISTEN dnp3_change wakes it on every stored check-in or event (migration
// 0005; the channel keeps its first name); a poll every `pollMs` (1 s) is the fallback if a notification is lost
// or the listening connection drops (db/wakeups.ts), so a stored change reaches the event buffer within about a
// second either way. A full reload every `fullEveryMs` catches devices going offline (no row marks that moment).
import { DEFAULT_FLOOR_S, type ClockLimits } from '../domain/checkin-clock.js';
import type pg from 'pg';
import { startWakeups, type Wakeups } from '../db/wakeups.js';
import { assignPowerLineSlots, loadPowerLines, type PowerLineSnapshot } from './power-lines.js';
import { assignSlots, feedState, loadSnapshots, maxSlot } from './store.js';
import type { StoredSnapshot, Watermark } from './store.js';

/** The stored check-in a snapshot's events come from (test fault timelines, latency metrics). */
export interface SnapshotOrigin {
  /** When the check-in was stored (device_records.CreatedDate), ms. */
  storedAtMs: number;
  recordId: number;
  /** Set when a test fault sent the check-in. */
  testFault?: { id: number; phase: 'fault' | 'clear' };
}

/** What a protocol does with the model's values: its own addresses, flags and events. Each returns its event count. */
export interface PointTarget {
  /** Room for slots 0..maxSlot (banks, common addresses). */
  size(maxSlot: number): void;
  device(s: StoredSnapshot, nowMs: number, clock: ClockLimits, origin: SnapshotOrigin | undefined): number;
  powerLines(lines: readonly PowerLineSnapshot[], nowMs: number): number;
  heartbeat(nowMs: number, startMs: number): void;
}

export interface PointFeedOptions {
  pool: pg.Pool;
  organizationId: string;
  /** OFFLINE_AFTER_HOURS: the ceiling of the communication-lost rule (domain/checkin-clock.ts). */
  offlineAfterHours: number;
  /** CHECKIN_INTERVAL_FLOOR_MINUTES in seconds (default DEFAULT_FLOOR_S). */
  checkinFloorS?: number;
  pollMs?: number;
  fullEveryMs?: number;
  clock?: () => number;
  onError?: (err: unknown) => void;
  /** Called after each refresh with the number of events it produced (tests, metrics). */
  onRefresh?: (events: number) => void;
}

/** The heartbeat's value: 0..100, one step a second since the feed started. */
export function heartbeatValue(nowMs: number, startMs: number): number {
  return Math.floor((nowMs - startMs) / 1000) % 101;
}

/**
 * The origin of a snapshot's events: only a record stored since the feed last saw the device (never at the
 * first load, whose events are the start-up's, not a check-in's). The phase of a test fault follows from
 * the code: its fault check-in always reports a fault, its clearing one none.
 */
export function originOf(s: StoredSnapshot, known: Map<string, number>, firstLoad: boolean): SnapshotOrigin | undefined {
  if (!s.record) return undefined;
  const before = known.get(s.imei);
  known.set(s.imei, s.record.id);
  if (firstLoad || before === s.record.id) return undefined;
  return {
    storedAtMs: s.record.storedAtMs, recordId: s.record.id,
    ...(s.record.testFaultId !== null ? { testFault: { id: s.record.testFaultId, phase: (s.actualOngoingFault ?? 0) === 0 ? 'clear' as const : 'fault' as const } } : {}),
  };
}

export class PointFeed {
  private watermark: Watermark | undefined;
  private lastFull = 0;
  private wakeups: Wakeups | undefined;
  private readonly startMs: number;
  private readonly clock: () => number;
  /** The newest RecordID applied per IMEI. */
  private readonly known = new Map<string, number>();

  constructor(private readonly opts: PointFeedOptions, private readonly target: PointTarget) {
    this.clock = opts.clock ?? Date.now;
    this.startMs = this.clock();
  }

  /** The first load (its failure fails the start), then a refresh on every NOTIFY dnp3_change and every `pollMs`. */
  async start(): Promise<void> {
    await this.run();
    this.wakeups = startWakeups({
      pool: this.opts.pool, channel: 'dnp3_change', tickMs: this.opts.pollMs ?? 1000, component: 'points',
      step: async () => {
        await this.run().catch((e: unknown) => this.opts.onError?.(e));
        return false;
      },
    });
  }

  private async run(): Promise<void> {
    const { pool, organizationId, offlineAfterHours } = this.opts;
    const clock = { floorS: this.opts.checkinFloorS ?? DEFAULT_FLOOR_S, ceilingS: offlineAfterHours * 3600 };
    const now = this.clock();
    const firstLoad = !this.watermark;
    const full = firstLoad || now - this.lastFull >= (this.opts.fullEveryMs ?? 60_000);
    // Watermark first: rows stored while we read are read again next time (updates are idempotent). The same
    // statement says whether a device or power line imported a moment ago waits for its slot, so a wake-up by a
    // stored check-in costs two round trips, not ten (docs/decisions.md#workers-wake-on-notify).
    const state = await feedState(pool, organizationId);
    let top = state.maxSlot;
    if (state.unslotted) {
      await assignSlots(pool, organizationId);
      await assignPowerLineSlots(pool, organizationId);
      top = await maxSlot(pool, organizationId);
    }
    this.target.size(top);
    // Per power line incident points: few rows, read on every run beside the snapshots, applied after the
    // devices so a device's event never waits for them.
    const powerLines = loadPowerLines(pool, organizationId);
    powerLines.catch(() => {}); // its failure is the round's, below
    const snapshots = await loadSnapshots(pool, organizationId, full ? undefined : this.watermark);
    if (full) this.lastFull = now;
    let events = 0;
    for (const s of snapshots) events += this.target.device(s, now, clock, originOf(s, this.known, firstLoad));
    events += this.target.powerLines(await powerLines, now);
    this.watermark = state.watermark;
    this.target.heartbeat(now, this.startMs);
    this.opts.onRefresh?.(events);
  }

  async stop(): Promise<void> {
    await this.wakeups?.stop();
  }
}
