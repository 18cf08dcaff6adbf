// The MultiSpeak outbox table (outbox/table.ts): lanes are (integration, device), so notifications stay in
// order per device, and only enabled integrations' rows are claimed.
import type pg from 'pg';
import { outboxTable } from '../../outbox/table.js';

export interface ClaimedRow {
  id: number;
  integration_id: string;
  IMEINumber: string;
  kind: 'checkin' | 'status';
  payload: unknown;
  attempts: number;
  created_at: Date;
}

export const multiSpeakOutbox = outboxTable<ClaimedRow>({
  table: 'outbox',
  lane: ['integration_id', '"IMEINumber"'],
  columns: ['integration_id', '"IMEINumber"', 'kind', 'payload'],
  join: 'join integrations i on i.id = o.integration_id and i.enabled',
});

export const claimDue = (pool: pg.Pool, limit: number, leaseMs: number) => multiSpeakOutbox.claimDue(pool, limit, leaseMs);
export const markDelivered = (pool: pg.Pool, id: number) => multiSpeakOutbox.markDelivered(pool, id);
export const markFailed = (pool: pg.Pool, id: number, error: string, delayMs: number, dead: boolean) => multiSpeakOutbox.markFailed(pool, id, error, delayMs, dead);
export const pendingCount = (pool: pg.Pool) => multiSpeakOutbox.pendingCount(pool);
