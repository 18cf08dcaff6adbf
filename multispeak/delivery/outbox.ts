// The MultiSpeak outbox table (outbox/table.ts): lanes are (integration, device), so notifications stay in
// order per device, and only enabled integrations' rows are claimed. The one owner of its rows: the kinds with
// their payloads, enqueue() for every writer (notify, the incident worker, resync) and the claim for the reader.
import type pg from 'pg';
import { outboxTable } from '../../outbox/table.js';
import type { IncidentPayload } from '../incident-payload.js';
import type { OutboxPayload } from '../outbox-payload.js';

/** What each kind of row carries: a check-in or a status change (outbox-payload.ts), a feeder incident (incident-payload.ts). */
export interface OutboxPayloads { checkin: OutboxPayload; status: OutboxPayload; incident: IncidentPayload }
export type OutboxKind = keyof OutboxPayloads;

/** A row to write; `dedupKey` is unique per integration, so writing it again (a re-processed batch) adds nothing. */
export type NewOutboxRow = { [K in OutboxKind]: { integrationId: string; IMEINumber: string; kind: K; dedupKey: string; payload: OutboxPayloads[K] } }[OutboxKind];

/**
 * Writes rows in the given order (the delivery worker sends in id order per lane, so a device's order is
 * kept), skipping any whose dedup key its integration already has. Resolves with how many were new.
 */
export async function enqueue(db: pg.Pool | pg.ClientBase, rows: readonly NewOutboxRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const { rowCount } = await db.query(
    `insert into outbox (integration_id, "IMEINumber", kind, dedup_key, payload)
       select i, m, k, d, p from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::jsonb[]) with ordinality as x(i, m, k, d, p, n)
       order by n
     on conflict (integration_id, dedup_key) do nothing`,
    [rows.map((r) => r.integrationId), rows.map((r) => r.IMEINumber), rows.map((r) => r.kind), rows.map((r) => r.dedupKey), rows.map((r) => JSON.stringify(r.payload))],
  );
  return rowCount ?? 0;
}

export interface ClaimedRow {
  id: number;
  integration_id: string;
  IMEINumber: string;
  kind: OutboxKind;
  payload: unknown;
  attempts: number;
  created_at: Date;
}

export const multiSpeakOutbox = outboxTable<ClaimedRow>({
  table: 'outbox',
  channel: 'outbox_rows',
  lane: ['integration_id', '"IMEINumber"'],
  columns: ['integration_id', '"IMEINumber"', 'kind', 'payload'],
  join: 'join integrations i on i.id = o.integration_id and i.enabled',
});

export const claimDue = (pool: pg.Pool, limit: number, leaseMs: number) => multiSpeakOutbox.claimDue(pool, limit, leaseMs);
export const markDelivered = (pool: pg.Pool, id: number) => multiSpeakOutbox.markDelivered(pool, id);
export const markFailed = (pool: pg.Pool, id: number, error: string, delayMs: number, dead: boolean) => multiSpeakOutbox.markFailed(pool, id, error, delayMs, dead);
export const pendingCount = (pool: pg.Pool) => multiSpeakOutbox.pendingCount(pool);
