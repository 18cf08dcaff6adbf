// Fleet answers kept while nothing they were built from can have changed (docs/decisions.md#a-map-rebuilt-when-something-changed):
// no transaction has committed, or begun writing, since (PostgreSQL's snapshot is the same, cluster-wide), and the
// clock has not reached the first instant the answer says will change by itself (a device's Offline). A map polled
// by a wall of screens through a quiet hour is then built once, not once a second per view; under a fleet whose
// check-ins commit every second, the snapshot moves every second and the map is built as before.
import type pg from 'pg';
import type { FleetAnswer } from './fleet-answer.js';

/** An answer as built, and until when it holds if the database does not change (epoch ms; Infinity: until it does). */
export interface Built { answer: FleetAnswer; validUntilMs: number }

interface Kept extends Built { snapshot: string; builtAtMs: number }

/**
 * The cluster's snapshot as text, `xmin:xmax:in-progress ids`, with when its server started and its last
 * checkpoint. Equal twice means no transaction with an id began or ended in between on that server. Transaction ids
 * are only a server's own count: after a crash (a rollback or an asynchronous commit not yet flushed), a restore or a
 * standby promoted without the last transactions, they go back and the same text comes round again over other rows.
 * A restore or a promotion is a server started anew (a standby has its own start); a crash the postmaster recovers
 * from in place keeps its start time but ends its recovery with a checkpoint. A routine checkpoint (every few
 * minutes) costs one build more.
 */
async function snapshotNow(pool: Pick<pg.Pool, 'query'>): Promise<string> {
  const { rows } = await pool.query<{ s: string }>(
    `select pg_current_snapshot()::text || ' ' || pg_postmaster_start_time()::text || ' ' || (pg_control_checkpoint()).checkpoint_lsn::text as s`);
  return rows[0]!.s;
}

export class UnchangedAnswers {
  private readonly kept = new Map<string, Kept>();

  /** `max`: views kept at most (a map of 10,000 devices is 2.5 MB a view); the least recently built go first. */
  constructor(private readonly pool: Pick<pg.Pool, 'query'>, private readonly now: () => number, private readonly max = 32) {}

  /**
   * The answer of `key` kept, if the snapshot is the one it was built after and the clock is inside its validity;
   * else `build`'s, kept. The snapshot is read before the build: a write that commits while it builds moves the
   * snapshot the next request reads, so the answer is built again rather than kept past it.
   */
  async answer(key: string, build: () => Promise<Built>): Promise<FleetAnswer> {
    const snapshot = await snapshotNow(this.pool);
    const t = this.now();
    const kept = this.kept.get(key);
    // A clock set back is inside no validity: the answer was judged at a later instant.
    if (kept && kept.snapshot === snapshot && t >= kept.builtAtMs && t < kept.validUntilMs) return kept.answer;
    const built = await build();
    this.kept.delete(key);
    this.kept.set(key, { ...built, snapshot, builtAtMs: t });
    if (this.kept.size > this.max) this.kept.delete(this.kept.keys().next().value!);
    return built.answer;
  }
}
