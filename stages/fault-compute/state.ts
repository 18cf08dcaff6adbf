// What fault-compute remembers per device: its recent records (for "the previous record" of spec 6.1 step
// 4) and its recent standard events that the Fault <50 rule may still pair (spec 3.4). Rebuilt from
// Postgres on first sight of a device after an assignment.
import type pg from 'pg';
import { SHIFT_TYPES, sqlTypeList } from '../../domain/fault-events.js';
import type { StoredShiftCandidate } from '../../domain/fault-shift.js';

export interface RecordSummary {
  date: string;
  model: string | null;
  AverageCurrent1m: number | null;
  ActualOngoingFault: number;
}

export interface FaultState {
  /** Sorted by date, oldest first; bounded. */
  records: RecordSummary[];
  /** Newest last; bounded. */
  events: StoredShiftCandidate[];
}

export const RECORDS_KEPT = 16;
export const EVENTS_KEPT = 32;

const recordsSql = `
  select i.imei, r."date", r.model, r."AverageCurrent1m", r."ActualOngoingFault"
    from unnest($1::text[]) as i(imei)
    cross join lateral (select "date", model, "AverageCurrent1m", "ActualOngoingFault" from device_records
                         where "IMEINumber" = i.imei order by "date" desc limit ${RECORDS_KEPT}) r`;

const eventsSql = `
  select i.imei, e."EventID", e."ReportedEventTimestamp" as ts, e."EventType", e."TimestampShifted"
    from unnest($1::text[]) as i(imei)
    cross join lateral (select "EventID", "ReportedEventTimestamp", "EventType", "TimestampShifted" from event_records
                         where "IMEINumber" = i.imei and "EventType" in ${sqlTypeList(SHIFT_TYPES)}
                         order by "Event_Record_ID" desc limit ${EVENTS_KEPT}) e`;

export async function loadFaultState(pool: pg.Pool, imeis: readonly string[]): Promise<Map<string, FaultState>> {
  const states = new Map<string, FaultState>(imeis.map((imei) => [imei, { records: [], events: [] }]));
  if (imeis.length === 0) return states;
  const [records, events] = await Promise.all([
    pool.query<{ imei: string; date: Date; model: string | null; AverageCurrent1m: number | null; ActualOngoingFault: number }>(recordsSql, [imeis]),
    pool.query<{ imei: string; EventID: number; ts: Date; EventType: string; TimestampShifted: boolean }>(eventsSql, [imeis]),
  ]);
  for (const r of records.rows) {
    states.get(r.imei)!.records.unshift({ date: r.date.toISOString(), model: r.model, AverageCurrent1m: r.AverageCurrent1m, ActualOngoingFault: r.ActualOngoingFault });
  }
  for (const e of events.rows) {
    states.get(e.imei)!.events.unshift({ EventID: e.EventID, EventTimestamp: e.ts.toISOString(), EventType: e.EventType, shifted: e.TimestampShifted });
  }
  return states;
}
