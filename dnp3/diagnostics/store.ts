// Discard counts per integration and reason, kept in memory by the process that runs the outstation and added
// to dnp3_discards every few seconds, so the API (often another process) can show them beside the point map.
import type pg from 'pg';
import type { DiscardReason } from './reasons.js';

interface Pending { count: number; first: Date; last: Date }

export class DiscardLedger {
  private pending = new Map<string, Pending>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly pool: pg.Pool, private readonly onError: (err: unknown) => void = () => {}) {}

  count(integrationId: string, reason: DiscardReason, at = new Date()): void {
    const key = `${integrationId}\u0000${reason}`;
    const p = this.pending.get(key);
    if (p) { p.count++; p.last = at; } else this.pending.set(key, { count: 1, first: at, last: at });
  }

  start(everyMs = 2_000): void {
    this.timer = setInterval(() => void this.flush(), everyMs);
    this.timer.unref();
  }

  /** Adds what was counted since the last flush; one statement, whatever the number of reasons. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.pending.size === 0) return;
      const batch = this.pending;
      this.pending = new Map();
      const keys = [...batch.keys()].map((k) => k.split('\u0000') as [string, string]);
      const values = [...batch.values()];
      try {
        await this.pool.query(
          `insert into dnp3_discards (integration_id, reason, count, first_at, last_at)
             select * from unnest($1::text[], $2::text[], $3::bigint[], $4::timestamptz[], $5::timestamptz[])
           on conflict (integration_id, reason) do update
             set count = dnp3_discards.count + excluded.count, last_at = greatest(dnp3_discards.last_at, excluded.last_at)`,
          [keys.map((k) => k[0]), keys.map((k) => k[1]), values.map((v) => v.count), values.map((v) => v.first), values.map((v) => v.last)],
        );
      } catch (err) {
        // Kept for the next flush: counts are not lost while the database is away.
        for (const [key, v] of batch) {
          const p = this.pending.get(key);
          this.pending.set(key, p ? { count: p.count + v.count, first: v.first, last: p.last } : v);
        }
        this.onError(err);
      }
    });
    return this.flushing;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }
}

export interface DiscardRow { integrationId: string; reason: string; count: number; firstAt: Date; lastAt: Date }

export async function readDiscards(pool: pg.Pool, integrationIds: readonly string[]): Promise<DiscardRow[]> {
  const { rows } = await pool.query<{ integration_id: string; reason: string; count: string; first_at: Date; last_at: Date }>(
    'select integration_id, reason, count, first_at, last_at from dnp3_discards where integration_id = any($1) order by integration_id, count desc, reason',
    [integrationIds],
  );
  return rows.map((r) => ({ integrationId: r.integration_id, reason: r.reason, count: Number(r.count), firstAt: r.first_at, lastAt: r.last_at }));
}
