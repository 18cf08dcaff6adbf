// A durable outbox table as a delivery worker uses it: the MultiSpeak outbox and the alarm outbox share
// this code (and the worker in worker.ts). Claiming takes, per lane (MultiSpeak: integration and device;
// alarms: recipient and device), only the oldest undelivered row, and only when it is due: the next row of
// a lane waits until the one before it is delivered or dead, which keeps each lane in order. The claim
// pushes next_attempt_at forward by a lease, so another worker process skips the row while it is in
// flight (and takes it over if this process dies mid-send).
import type pg from 'pg';

export interface OutboxTableSpec {
  /** Table name (a constant of the code, never input). */
  table: string;
  /** The NOTIFY channel its insert trigger raises (migration 0046); none: the worker's tick alone. */
  channel?: string;
  /** Columns that make a lane, e.g. ['integration_id', '"IMEINumber"']. */
  lane: readonly string[];
  /** Extra columns returned by a claim. */
  columns: readonly string[];
  /** Extra `join ... on ...` of the claim (e.g. only enabled integrations), with alias `o` for the outbox. */
  join?: string;
  /** Extra condition on rows that may be sent (e.g. `o.suppressed is null`). */
  where?: string;
}

export interface ClaimedBase {
  id: number;
  attempts: number;
  created_at: Date;
}

export interface OutboxEntryBase {
  id: number;
  attempts: number;
  created_at: Date;
  next_attempt_at: Date;
  last_error: string | null;
  delivered_at: Date | null;
  dead_at: Date | null;
}

export type OutboxState = 'pending' | 'dead' | 'delivered' | 'all';

const STATE_WHERE: Record<OutboxState, string> = {
  pending: 'delivered_at is null and dead_at is null',
  dead: 'dead_at is not null',
  delivered: 'delivered_at is not null',
  all: 'true',
};

export interface OutboxTable<Row extends ClaimedBase> {
  readonly spec: OutboxTableSpec;
  claimDue(pool: pg.Pool, limit: number, leaseMs: number): Promise<Row[]>;
  markDelivered(pool: pg.Pool, id: number): Promise<void>;
  /** A failed attempt: try again after `delayMs`, or dead when `dead` (too old, or not worth retrying). */
  markFailed(pool: pg.Pool, id: number, error: string, delayMs: number, dead: boolean): Promise<void>;
  pendingCount(pool: pg.Pool): Promise<number>;
  /** Rows in a state, newest first; `filter` is one more column = value condition (e.g. the integration). */
  list<E extends OutboxEntryBase>(pool: pg.Pool, o: { state?: OutboxState; limit?: number; filter?: { column: string; value: string | null } ; columns: readonly string[] }): Promise<E[]>;
  /**
   * Puts a dead (or waiting) row back at the head of its lane, due now. The maximum age still counts from
   * its creation: a retry is one more try, and a failure makes it dead again.
   */
  retry(pool: pg.Pool, id: number, scope?: { column: string; value: string }): Promise<boolean>;
}

export function outboxTable<Row extends ClaimedBase>(spec: OutboxTableSpec): OutboxTable<Row> {
  const { table, lane } = spec;
  const open = 'o.delivered_at is null and o.dead_at is null' + (spec.where ? ` and ${spec.where}` : '');
  const laneCols = lane.map((c) => `o.${c}`).join(', ');
  const claim = `
    with heads as (
      select distinct on (${laneCols}) o.id, o.next_attempt_at
        from ${table} o ${spec.join ?? ''}
       where ${open}
       order by ${laneCols}, o.id
    ), due as (
      select id from heads where next_attempt_at <= now() order by id limit $1
    )
    update ${table} o set attempts = o.attempts + 1, next_attempt_at = now() + $2 * interval '1 millisecond'
      from due
     where o.id = due.id and o.next_attempt_at <= now() and o.delivered_at is null and o.dead_at is null
    returning o.id, o.attempts, o.created_at, ${spec.columns.map((c) => `o.${c}`).join(', ')}`;
  return {
    spec,
    async claimDue(pool, limit, leaseMs) {
      const { rows } = await pool.query<Row>(claim, [limit, leaseMs]);
      return rows.sort((a, b) => a.id - b.id);
    },
    async markDelivered(pool, id) {
      await pool.query(`update ${table} set delivered_at = now(), last_error = null where id = $1`, [id]);
    },
    async markFailed(pool, id, error, delayMs, dead) {
      await pool.query(
        `update ${table} set last_error = $2, next_attempt_at = now() + $3 * interval '1 millisecond', dead_at = case when $4 then now() end
          where id = $1`,
        [id, error.slice(0, 1000), Math.round(delayMs), dead],
      );
    },
    async pendingCount(pool) {
      const { rows } = await pool.query<{ n: number }>(`select count(*)::int as n from ${table} o where ${open}`);
      return rows[0]?.n ?? 0;
    },
    async list<E extends OutboxEntryBase>(pool: pg.Pool, { state = 'pending', limit = 50, filter, columns }: { state?: OutboxState; limit?: number; filter?: { column: string; value: string | null }; columns: readonly string[] }): Promise<E[]> {
      const { rows } = await pool.query<E>(
        `select id, ${columns.join(', ')}, attempts, created_at, next_attempt_at, last_error, delivered_at, dead_at
           from ${table} where ${STATE_WHERE[state]} ${filter ? `and ($2::text is null or ${filter.column} = $2)` : ''} order by id desc limit $1`,
        filter ? [limit, filter.value] : [limit],
      );
      return rows;
    },
    async retry(pool, id, scope) {
      const { rowCount } = await pool.query(
        `update ${table} set dead_at = null, next_attempt_at = now() where id = $1 and delivered_at is null ${scope ? `and ${scope.column} = $2` : ''}`,
        scope ? [id, scope.value] : [id],
      );
      return (rowCount ?? 0) > 0;
    },
  };
}
