// Keeps one organisation's outstations (one per bank of BANK_SLOTS slots, point-map.ts) in step with Postgres. LISTEN dnp3_change wakes it on every stored
// check-in or event (migration 0005); a poll every `pollMs` (1 s) is the fallback if a notification is lost
// or the listening connection drops, so a stored change reaches the event buffer within about a second
// either way. A full reload every `fullEveryMs` catches devices going offline (no row marks that moment).
// A bank's outstation is created when the highest slot first reaches it; sessions already connected pick it up
// from the same `banks` array on their next frame or tick.
import { DEFAULT_FLOOR_S } from '../../domain/checkin-clock.js';
import type pg from 'pg';
import type { Outstation } from '../outstation/outstation.js';
import { applyHeartbeat, applySnapshot, sizeBanks } from './apply.js';
import { assignPowerLineSlots, loadPowerLines } from '../../points/power-lines.js';
import { applyPowerLines } from './power-lines.js';
import { assignSlots, currentWatermark, loadSnapshots, maxSlot } from '../../points/store.js';
import type { StoredSnapshot, Watermark } from '../../points/store.js';
import type { EventOrigin } from '../outstation/database.js';

export interface FeedOptions {
  pool: pg.Pool;
  organizationId: string;
  /** The organisation's outstations, index = bank; the feed appends new banks (live: sessions read it too). */
  banks: Outstation[];
  /** Makes a new bank's outstation (default: `new Outstation()`). */
  createOutstation?: () => Outstation;
  analogOnly: boolean;
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

/**
 * The origin of a snapshot's events: only a record stored since the feed last saw the device (never at the
 * first load, whose events are the start-up's, not a check-in's). The phase of a test fault follows from
 * the code: its fault check-in always reports a fault, its clearing one none.
 */
export function originOf(s: StoredSnapshot, known: Map<string, number>, firstLoad: boolean): EventOrigin | undefined {
  if (!s.record) return undefined;
  const before = known.get(s.imei);
  known.set(s.imei, s.record.id);
  if (firstLoad || before === s.record.id) return undefined;
  return {
    storedAtMs: s.record.storedAtMs, recordId: s.record.id,
    ...(s.record.testFaultId !== null ? { testFault: { id: s.record.testFaultId, phase: (s.actualOngoingFault ?? 0) === 0 ? 'clear' as const : 'fault' as const } } : {}),
  };
}

export class Dnp3Feed {
  private watermark: Watermark | undefined;
  private lastFull = 0;
  private timer: NodeJS.Timeout | undefined;
  private listener: pg.PoolClient | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private readonly startMs: number;
  private readonly clock: () => number;
  /** The newest RecordID applied per IMEI. */
  private readonly known = new Map<string, number>();

  constructor(private readonly opts: FeedOptions) {
    this.clock = opts.clock ?? Date.now;
    this.startMs = this.clock();
  }

  async start(): Promise<void> {
    await this.refresh();
    this.listener = await this.opts.pool.connect();
    this.listener.on('notification', () => void this.refresh().catch((e: unknown) => this.opts.onError?.(e)));
    this.listener.on('error', (e) => this.opts.onError?.(e));
    await this.listener.query('listen dnp3_change');
    this.timer = setInterval(() => void this.refresh().catch((e: unknown) => this.opts.onError?.(e)), this.opts.pollMs ?? 1000);
    this.timer.unref();
  }

  /** Reads what changed and applies it. Overlapping calls collapse into one follow-up run. */
  refresh(): Promise<void> {
    if (this.running) { this.again = true; return this.running; }
    this.running = this.run().finally(() => {
      this.running = undefined;
      if (this.again) { this.again = false; void this.refresh().catch((e: unknown) => this.opts.onError?.(e)); }
    });
    return this.running;
  }

  private async run(): Promise<void> {
    const { pool, organizationId, banks, analogOnly, offlineAfterHours } = this.opts;
    const clock = { floorS: this.opts.checkinFloorS ?? DEFAULT_FLOOR_S, ceilingS: offlineAfterHours * 3600 };
    const now = this.clock();
    const firstLoad = !this.watermark;
    const full = firstLoad || now - this.lastFull >= (this.opts.fullEveryMs ?? 60_000);
    // Every run: a device imported a moment ago gets its slot (one insert-select; a no-op when none are new).
    await assignSlots(pool, organizationId);
    await assignPowerLineSlots(pool, organizationId);
    sizeBanks(banks, await maxSlot(pool, organizationId), analogOnly, this.opts.createOutstation);
    // Watermark first: rows stored while we read are read again next time (updates are idempotent).
    const mark = await currentWatermark(pool);
    const snapshots = await loadSnapshots(pool, organizationId, full ? undefined : this.watermark);
    if (full) this.lastFull = now;
    this.watermark = mark;
    let events = 0;
    for (const s of snapshots) events += applySnapshot(banks, s, now, clock, analogOnly, originOf(s, this.known, firstLoad));
    // Per power line incident points (few rows: read on every run).
    events += applyPowerLines(banks, await loadPowerLines(pool, organizationId), now, analogOnly);
    applyHeartbeat(banks, now, this.startMs);
    this.opts.onRefresh?.(events);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running?.catch(() => {});
    if (this.listener) {
      await this.listener.query('unlisten dnp3_change').catch(() => {});
      this.listener.release();
      this.listener = undefined;
    }
  }
}
