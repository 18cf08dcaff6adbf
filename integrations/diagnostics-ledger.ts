// What a SCADA master did wrong, counted per integration and reason for every protocol (DNP3 discards,
// IEC 104 refusals; docs/decisions.md#master-diagnostics). The process that runs a station counts in memory
// and adds the counts to master_diagnostics every few seconds, so the API (often another process) can show
// them beside the point map. Each protocol owns its reasons and their sentences (dnp3/diagnostics/reasons.ts,
// iec104/diagnostics/reasons.ts); this file owns only counting and storing them.
import type pg from 'pg';
import { FlushTimer } from '../plumbing/flush-timer.js';

export type MasterProtocol = 'dnp3' | 'iec104';

/** The integration id of a refusal made before any integration was known (docs/decisions.md#master-diagnostics). */
export const UNATTRIBUTED = '';

export interface TallyRow { integrationId: string; reason: string; count: number; first: Date; last: Date }

/** Counts not yet stored, by integration and reason. Pure: no I/O, time an argument. */
export class Tally {
  private rows = new Map<string, TallyRow>();

  get size(): number { return this.rows.size; }

  count(integrationId: string, reason: string, at: Date): void {
    const key = `${integrationId}\u0000${reason}`;
    const r = this.rows.get(key);
    if (r) { r.count++; if (at > r.last) r.last = at; if (at < r.first) r.first = at; } else this.rows.set(key, { integrationId, reason, count: 1, first: at, last: at });
  }

  /** Everything counted so far; the tally is empty after. */
  take(): TallyRow[] {
    const out = [...this.rows.values()];
    this.rows = new Map();
    return out;
  }

  /** Rows taken but not stored (the database was away): merged with what was counted since, nothing lost. */
  putBack(rows: readonly TallyRow[]): void {
    for (const v of rows) {
      const key = `${v.integrationId}\u0000${v.reason}`;
      const r = this.rows.get(key);
      this.rows.set(key, r
        ? { ...r, count: r.count + v.count, first: v.first < r.first ? v.first : r.first, last: v.last > r.last ? v.last : r.last }
        : { ...v });
    }
  }
}

export class DiagnosticsLedger<Reason extends string = string> {
  private readonly tally = new Tally();
  private readonly timer: FlushTimer;

  constructor(private readonly pool: pg.Pool, private readonly protocol: MasterProtocol, private readonly onError: (err: unknown) => void = () => {}) {
    this.timer = new FlushTimer(() => this.write(), onError);
  }

  /** `integrationId`: UNATTRIBUTED when the refusal came before any integration was known. */
  count(integrationId: string, reason: Reason, at = new Date()): void {
    this.tally.count(integrationId, reason, at);
  }

  start(everyMs = 2_000): void {
    this.timer.start(everyMs);
  }

  /** Adds what was counted since the last flush; one statement, whatever the number of reasons. */
  flush(): Promise<void> {
    return this.timer.flush();
  }

  async stop(): Promise<void> {
    await this.timer.stop();
  }

  private async write(): Promise<void> {
    if (this.tally.size === 0) return;
    const batch = this.tally.take();
    try {
      await this.pool.query(
        `insert into master_diagnostics (protocol, integration_id, reason, count, first_at, last_at)
           select $1, * from unnest($2::text[], $3::text[], $4::bigint[], $5::timestamptz[], $6::timestamptz[])
         on conflict (protocol, integration_id, reason) do update
           set count = master_diagnostics.count + excluded.count,
               first_at = least(master_diagnostics.first_at, excluded.first_at),
               last_at = greatest(master_diagnostics.last_at, excluded.last_at)`,
        [this.protocol, batch.map((r) => r.integrationId), batch.map((r) => r.reason), batch.map((r) => r.count), batch.map((r) => r.first), batch.map((r) => r.last)],
      );
    } catch (err) {
      // Kept for the next flush: counts are not lost while the database is away.
      this.tally.putBack(batch);
      this.onError(err);
    }
  }
}

export interface DiagnosticRow { integrationId: string; reason: string; count: number; firstAt: Date; lastAt: Date }

/** The stored counts of `protocol` for these integrations, by integration, most frequent reason first. */
export async function readDiagnostics(pool: pg.Pool, protocol: MasterProtocol, integrationIds: readonly string[]): Promise<DiagnosticRow[]> {
  const { rows } = await pool.query<{ integration_id: string; reason: string; count: string; first_at: Date; last_at: Date }>(
    `select integration_id, reason, count, first_at, last_at from master_diagnostics
      where protocol = $1 and integration_id = any($2) order by integration_id, count desc, reason`,
    [protocol, integrationIds],
  );
  return rows.map((r) => ({ integrationId: r.integration_id, reason: r.reason, count: Number(r.count), firstAt: r.first_at, lastAt: r.last_at }));
}
