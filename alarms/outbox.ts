// The alarm outbox table (outbox/table.ts): lanes are (recipient, device), so a clear never overtakes its
// raise; rows over a recipient's cap are kept but never claimed.
import type pg from 'pg';
import { outboxTable, type OutboxEntryBase, type OutboxState } from '../outbox/table.js';
import type { AlarmPayload, MessageKind } from '../domain/alarm-message.js';

export interface AlarmOutboxRow {
  id: number;
  attempts: number;
  created_at: Date;
  recipient_id: string;
  alarm_id: number | null;
  kind: MessageKind;
  lane: string;
  payload: AlarmPayload;
}

export const alarmOutbox = outboxTable<AlarmOutboxRow>({
  table: 'alarm_outbox',
  channel: 'alarm_outbox_rows',
  lane: ['recipient_id', 'lane'],
  columns: ['recipient_id', 'alarm_id', 'kind', 'lane', 'payload'],
  where: 'o.suppressed is null',
});

export interface AlarmDelivery extends OutboxEntryBase {
  OrganizationID: string;
  recipient_id: string;
  alarm_id: number | null;
  kind: string;
  suppressed: string | null;
}

const COLUMNS = ['"OrganizationID"', 'recipient_id', 'alarm_id', 'kind', 'suppressed'];

/** Alarm messages in a state, newest first; `org` limits them to one organisation (the API). */
export function listAlarmDeliveries(pool: pg.Pool, { state = 'dead', limit = 50, org }: { state?: OutboxState; limit?: number; org?: string } = {}): Promise<AlarmDelivery[]> {
  return alarmOutbox.list<AlarmDelivery>(pool, { state, limit, filter: { column: '"OrganizationID"', value: org ?? null }, columns: COLUMNS });
}

export function retryAlarmDelivery(pool: pg.Pool, id: number, org?: string): Promise<boolean> {
  return alarmOutbox.retry(pool, id, org ? { column: '"OrganizationID"', value: org } : undefined);
}
