// The outbox table as the worker uses it. Claiming takes, per (integration, device), only the oldest
// undelivered row, and only when it is due: the next row of a device waits until the one before it is
// delivered or dead, which is what keeps notifications in order per device. The claim pushes
// next_attempt_at forward by a lease, so another worker process skips the row while it is in flight (and
// takes it over if this process dies mid-send).
import type pg from 'pg';

export interface ClaimedRow {
  id: number;
  integration_id: string;
  IMEINumber: string;
  kind: 'checkin' | 'status';
  payload: unknown;
  attempts: number;
  created_at: Date;
}

const CLAIM = `
  with heads as (
    select distinct on (o.integration_id, o."IMEINumber") o.id, o.next_attempt_at
      from outbox o join integrations i on i.id = o.integration_id and i.enabled
     where o.delivered_at is null and o.dead_at is null
     order by o.integration_id, o."IMEINumber", o.id
  ), due as (
    select id from heads where next_attempt_at <= now() order by id limit $1
  )
  update outbox o set attempts = o.attempts + 1, next_attempt_at = now() + $2 * interval '1 millisecond'
    from due
   where o.id = due.id and o.next_attempt_at <= now() and o.delivered_at is null and o.dead_at is null
  returning o.id, o.integration_id, o."IMEINumber", o.kind, o.payload, o.attempts, o.created_at`;

export async function claimDue(pool: pg.Pool, limit: number, leaseMs: number): Promise<ClaimedRow[]> {
  const { rows } = await pool.query<ClaimedRow>(CLAIM, [limit, leaseMs]);
  return rows.sort((a, b) => a.id - b.id);
}

export async function markDelivered(pool: pg.Pool, id: number): Promise<void> {
  await pool.query('update outbox set delivered_at = now(), last_error = null where id = $1', [id]);
}

/** A failed attempt: try again after `delayMs`, or dead when `dead` (too old, or not worth retrying). */
export async function markFailed(pool: pg.Pool, id: number, error: string, delayMs: number, dead: boolean): Promise<void> {
  await pool.query(
    `update outbox set last_error = $2, next_attempt_at = now() + $3 * interval '1 millisecond', dead_at = case when $4 then now() end
      where id = $1`,
    [id, error.slice(0, 1000), Math.round(delayMs), dead],
  );
}

export async function pendingCount(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ n: number }>('select count(*)::int as n from outbox where delivered_at is null and dead_at is null');
  return rows[0]?.n ?? 0;
}
