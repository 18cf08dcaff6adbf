// What `faultline outbox list|retry` does, as functions the CLI and the tests share.
import type pg from 'pg';

export type OutboxState = 'pending' | 'dead' | 'delivered' | 'all';

export interface OutboxEntry {
  id: number;
  integration_id: string;
  IMEINumber: string;
  kind: string;
  attempts: number;
  created_at: Date;
  next_attempt_at: Date;
  last_error: string | null;
  delivered_at: Date | null;
  dead_at: Date | null;
}

const WHERE: Record<OutboxState, string> = {
  pending: 'delivered_at is null and dead_at is null',
  dead: 'dead_at is not null',
  delivered: 'delivered_at is not null',
  all: 'true',
};

export async function listOutbox(pool: pg.Pool, { state = 'pending', limit = 50, integration }: { state?: OutboxState; limit?: number; integration?: string } = {}): Promise<OutboxEntry[]> {
  const { rows } = await pool.query<OutboxEntry>(
    `select id, integration_id, "IMEINumber", kind, attempts, created_at, next_attempt_at, last_error, delivered_at, dead_at
       from outbox where ${WHERE[state]} and ($2::text is null or integration_id = $2) order by id desc limit $1`,
    [limit, integration ?? null],
  );
  return rows;
}

/**
 * Puts a dead (or waiting) row back at the head of its device's queue, due now. The maximum age still
 * counts from its creation: a retry is one more try, and a failure makes it dead again.
 */
export async function retryOutbox(pool: pg.Pool, id: number): Promise<boolean> {
  const { rowCount } = await pool.query(
    'update outbox set dead_at = null, next_attempt_at = now() where id = $1 and delivered_at is null', [id],
  );
  return (rowCount ?? 0) > 0;
}
