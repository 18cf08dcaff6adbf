// What dedup remembers per device, and how it is rebuilt from Postgres after a (re)start or rebalance.
// Only the stage that owns the device's partition writes this state, so the cache stays true as long as
// it is dropped whenever ownership may have changed (onAssign/onRevoke).
import type pg from 'pg';
import type { KeptEvent } from '../../domain/event-history.js';
import { epochMs } from '../../domain/utc-timestamp.js';

export type EventTableKey = 'standard' | 'dm1';

export interface EventHistory {
  /** Kept events, newest check-ins last; bounded to HISTORY_KEPT. */
  events: KeptEvent[];
  /** False when older kept events exist in the database than the oldest held here. */
  complete: boolean;
}

export interface DedupState {
  standard: EventHistory;
  dm1: EventHistory;
  /** Dates of the device's recent check-ins (ISO UTC), newest last; bounded. */
  recentDates: string[];
}

export const HISTORY_KEPT = 64;
export const RECENT_DATES_KEPT = 64;

const TABLES: Record<EventTableKey, string> = { standard: 'event_records', dm1: 'dm1_event_records' };
const iso = (d: Date) => d.toISOString();

// Newest check-ins first, and within one check-in the order the events were kept (Event_Record_ID).
const historySql = (table: string) => `
  select i.imei, e."PacketTimestamp" as date, e."EventID", e."ReportedEventTimestamp" as ts
    from unnest($1::text[]) as i(imei)
    cross join lateral (select "PacketTimestamp", "EventID", "ReportedEventTimestamp", "Event_Record_ID" from ${table}
                         where "IMEINumber" = i.imei order by "PacketTimestamp" desc, "Event_Record_ID" desc limit ${HISTORY_KEPT}) e
   order by i.imei, e."PacketTimestamp", e."Event_Record_ID"`;

const datesSql = `
  select i.imei, r."date"
    from unnest($1::text[]) as i(imei)
    cross join lateral (select "date" from device_records where "IMEINumber" = i.imei
                         order by "date" desc limit ${RECENT_DATES_KEPT}) r`;

const emptyHistory = (): EventHistory => ({ events: [], complete: true });

export async function loadDedupState(pool: pg.Pool, imeis: readonly string[]): Promise<Map<string, DedupState>> {
  const states = new Map<string, DedupState>(imeis.map((imei) => [imei, { standard: emptyHistory(), dm1: emptyHistory(), recentDates: [] }]));
  if (imeis.length === 0) return states;
  type Row = { imei: string; date: Date; EventID: number; ts: Date };
  const [standard, dm1, dates] = await Promise.all([
    pool.query<Row>(historySql(TABLES.standard), [imeis]),
    pool.query<Row>(historySql(TABLES.dm1), [imeis]),
    pool.query<{ imei: string; date: Date }>(datesSql, [imeis]),
  ]);
  for (const [key, result] of [['standard', standard], ['dm1', dm1]] as const) {
    for (const r of result.rows) states.get(r.imei)![key].events.push({ date: iso(r.date), EventID: r.EventID, EventTimestamp: iso(r.ts) });
    for (const s of states.values()) s[key].complete = s[key].events.length < HISTORY_KEPT;
  }
  for (const r of dates.rows) states.get(r.imei)!.recentDates.unshift(iso(r.date));
  return states;
}

/** True when a check-in dated `date` is older than what the history holds and older events may exist. */
export function historyTooShort(history: EventHistory, date: string): boolean {
  const oldest = history.events[0];
  return !history.complete && oldest !== undefined && epochMs(date) <= epochMs(oldest.date);
}

/** A late check-in older than the held history: the kept events before its date, from the database. */
export async function loadHistoryBefore(pool: pg.Pool, imei: string, table: EventTableKey, date: string): Promise<KeptEvent[]> {
  const { rows } = await pool.query<{ date: Date; EventID: number; ts: Date }>(
    `select * from (select "PacketTimestamp" as date, "EventID", "ReportedEventTimestamp" as ts, "Event_Record_ID" as id from ${TABLES[table]}
        where "IMEINumber" = $1 and "PacketTimestamp" < $2 order by "PacketTimestamp" desc, "Event_Record_ID" desc limit ${HISTORY_KEPT}) e
      order by date, id`,
    [imei, date],
  );
  return rows.map((r) => ({ date: iso(r.date), EventID: r.EventID, EventTimestamp: iso(r.ts) }));
}
