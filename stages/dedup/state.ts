// What dedup remembers per device, and how it is rebuilt from Postgres after a (re)start or rebalance.
// Only the stage that owns the device's partition writes this state, so the cache stays true as long as
// it is dropped whenever ownership may have changed (onAssign/onRevoke).
import type pg from 'pg';
import type { EventFilterState } from '../../domain/event-filter.js';

export interface DedupState {
  standard: EventFilterState | null;
  dm1: EventFilterState | null;
  /** Dates of the device's recent check-ins (ISO UTC), newest last; bounded. */
  recentDates: string[];
}

export const RECENT_DATES_KEPT = 32;

const iso = (d: Date) => d.toISOString();

// The mark is the most recently stored event (highest Event_Record_ID): after a reset event the device's
// counter restarts, so the highest EventID is not the mark. The time is the device's own (before any
// Fault <50 shift).
const markSql = (table: 'event_records' | 'dm1_event_records') => `
  select i.imei, e."EventID", e."ReportedEventTimestamp" as ts
    from unnest($1::text[]) as i(imei)
    cross join lateral (select "EventID", "ReportedEventTimestamp" from ${table}
                         where "IMEINumber" = i.imei order by "Event_Record_ID" desc limit 1) e`;

const datesSql = `
  select i.imei, r."date"
    from unnest($1::text[]) as i(imei)
    cross join lateral (select "date" from device_records where "IMEINumber" = i.imei
                         order by "date" desc limit ${RECENT_DATES_KEPT}) r`;

export async function loadDedupState(pool: pg.Pool, imeis: readonly string[]): Promise<Map<string, DedupState>> {
  const states = new Map<string, DedupState>(imeis.map((imei) => [imei, { standard: null, dm1: null, recentDates: [] }]));
  if (imeis.length === 0) return states;
  const [standard, dm1, dates] = await Promise.all([
    pool.query<{ imei: string; EventID: number; ts: Date }>(markSql('event_records'), [imeis]),
    pool.query<{ imei: string; EventID: number; ts: Date }>(markSql('dm1_event_records'), [imeis]),
    pool.query<{ imei: string; date: Date }>(datesSql, [imeis]),
  ]);
  for (const r of standard.rows) states.get(r.imei)!.standard = { lastEventId: r.EventID, lastEventTimestamp: iso(r.ts) };
  for (const r of dm1.rows) states.get(r.imei)!.dm1 = { lastEventId: r.EventID, lastEventTimestamp: iso(r.ts) };
  for (const r of dates.rows) states.get(r.imei)!.recentDates.unshift(iso(r.date));
  return states;
}
