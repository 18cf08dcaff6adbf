// What `faultline outbox list|retry` does, as functions the CLI and the tests share (outbox/table.ts).
import type pg from 'pg';
import type { OutboxEntryBase, OutboxState } from '../../outbox/table.js';
import { multiSpeakOutbox } from './outbox.js';

export type { OutboxState };

export interface OutboxEntry extends OutboxEntryBase {
  integration_id: string;
  IMEINumber: string;
  kind: string;
}

export function listOutbox(pool: pg.Pool, { state = 'pending', limit = 50, integration }: { state?: OutboxState; limit?: number; integration?: string } = {}): Promise<OutboxEntry[]> {
  return multiSpeakOutbox.list<OutboxEntry>(pool, { state, limit, filter: { column: 'integration_id', value: integration ?? null }, columns: ['integration_id', '"IMEINumber"', 'kind'] });
}

/** Puts a dead (or waiting) row back at the head of its device's queue, due now. */
export function retryOutbox(pool: pg.Pool, id: number): Promise<boolean> {
  return multiSpeakOutbox.retry(pool, id);
}
