// What a station keeps across a restart of faultline (migration 0016; docs/decisions.md#iec-104-events-across-restarts),
// whatever its protocol: the encoded events not yet acknowledged by a master, in order, and the last value of each
// point. Restored before the feed's first load, the image makes a change stored while the station was down an
// event like any other, and the pending events are delivered first. Writes are batched (one transaction per
// flush, every `everyMs`): a crash loses at most the last interval, and what it loses is found again as a
// difference between the restored image and the stored values.
import type pg from 'pg';
import { withTransaction } from '../db/transaction.js';
import { FlushTimer } from '../plumbing/flush-timer.js';
import type { PointKind } from './device-points.js';

/** A point as an encoding addresses it: bank (IEC 104: common address) and address (IOA). */
export interface ImagePoint { bank: number; address: number; kind: PointKind; value: number; quality: number; time: number }

export interface Restored { image: ImagePoint[]; pending: { seq: number; payload: Uint8Array }[] }

export class PointPersistence {
  private seq = 0;
  private events: { seq: number; payload: Uint8Array }[] = [];
  private image = new Map<string, ImagePoint>();
  private ackedUpTo = 0;
  private ackedWritten = 0;
  private readonly timer: FlushTimer;

  constructor(private readonly pool: pg.Pool, readonly integrationId: string, private readonly onError: (err: unknown) => void = () => {}) {
    this.timer = new FlushTimer(() => this.write(), onError);
  }

  async load(): Promise<Restored> {
    const [image, pending] = await Promise.all([
      this.pool.query<{ bank: number; address: number; kind: PointKind; value: number; quality: number; time_ms: string }>(
        'select bank, address, kind, value, quality, time_ms from point_images where integration_id = $1', [this.integrationId]),
      this.pool.query<{ seq: string; payload: Buffer }>('select seq, payload from pending_point_events where integration_id = $1 order by seq', [this.integrationId]),
    ]);
    this.seq = pending.rows.reduce((max, r) => Math.max(max, Number(r.seq)), 0);
    return {
      image: image.rows.map((r) => ({ bank: r.bank, address: r.address, kind: r.kind, value: r.value, quality: r.quality, time: Number(r.time_ms) })),
      pending: pending.rows.map((r) => ({ seq: Number(r.seq), payload: new Uint8Array(r.payload) })),
    };
  }

  /** Events raised, in order: their sequence numbers (for `acknowledged`). */
  append(payloads: readonly Uint8Array[]): number[] {
    return payloads.map((payload) => {
      const seq = ++this.seq;
      this.events.push({ seq, payload });
      return seq;
    });
  }

  /** Points whose value changed (or every point, after a first load). */
  saveImage(points: Iterable<ImagePoint>): void {
    for (const p of points) this.image.set(`${p.bank}:${p.address}`, p);
  }

  /** Events up to `seq` were acknowledged by a master: they need not survive a restart. */
  acknowledged(seq: number): void {
    this.ackedUpTo = Math.max(this.ackedUpTo, seq);
  }

  start(everyMs = 500): void {
    this.timer.start(everyMs);
  }

  /** Writes what changed since the last flush in one transaction; on failure it is kept for the next. */
  flush(): Promise<void> {
    return this.timer.flush();
  }

  private async write(): Promise<void> {
    if (this.events.length === 0 && this.image.size === 0 && this.ackedUpTo === this.ackedWritten) return;
    const [events, image, acked] = [this.events, [...this.image.values()], this.ackedUpTo];
    this.events = [];
    this.image = new Map();
    try {
      await withTransaction(this.pool, async (client) => {
        if (events.length) {
          await client.query('insert into pending_point_events (integration_id, seq, payload) select $1, * from unnest($2::bigint[], $3::bytea[]) on conflict do nothing',
            [this.integrationId, events.map((e) => e.seq), events.map((e) => Buffer.from(e.payload))]);
        }
        if (image.length) {
          await client.query(
            `insert into point_images (integration_id, bank, address, kind, value, quality, time_ms)
               select $1, * from unnest($2::int[], $3::int[], $4::text[], $5::float8[], $6::int[], $7::bigint[])
             on conflict (integration_id, bank, address) do update
               set kind = excluded.kind, value = excluded.value, quality = excluded.quality, time_ms = excluded.time_ms`,
            [this.integrationId, image.map((p) => p.bank), image.map((p) => p.address), image.map((p) => p.kind), image.map((p) => p.value), image.map((p) => p.quality), image.map((p) => p.time)]);
        }
        if (acked > this.ackedWritten) await client.query('delete from pending_point_events where integration_id = $1 and seq <= $2', [this.integrationId, acked]);
      });
      this.ackedWritten = acked;
    } catch (err) {
      this.events = [...events, ...this.events];
      for (const p of image) if (!this.image.has(`${p.bank}:${p.address}`)) this.image.set(`${p.bank}:${p.address}`, p);
      this.onError(err);
    }
  }

  async stop(): Promise<void> {
    await this.timer.stop();
  }
}
