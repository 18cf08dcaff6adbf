// What fault-compute remembers per device: its recent records (for "the previous record" of spec 6.1 step
// 4) and its recent standard events that the Fault <50 rule may still pair (spec 3.4). Rebuilt from
// Postgres on first sight of a device after an assignment. A check-in older than every record held is
// given its previous record from Postgres (recordBefore), and one whose events reach back past the held shift
// candidates the stored ones around them (shiftCandidatesBetween), so a very late one gets the in-order answer.
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
  /** `records` holds every stored record of the device (fewer than RECORDS_KEPT were ever stored). */
  allRecords: boolean;
  /** Newest last; bounded. */
  events: StoredShiftCandidate[];
  /** `events` holds every stored shift candidate of the device (fewer than EVENTS_KEPT were ever stored). */
  allEvents: boolean;
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
  const states = new Map<string, FaultState>(imeis.map((imei) => [imei, { records: [], allRecords: true, events: [], allEvents: true }]));
  if (imeis.length === 0) return states;
  const [records, events] = await Promise.all([
    pool.query<RecordRow & { imei: string }>(recordsSql, [imeis]),
    pool.query<CandidateRow & { imei: string }>(eventsSql, [imeis]),
  ]);
  for (const r of records.rows) {
    const state = states.get(r.imei)!;
    state.records.unshift(recordSummary(r));
    if (state.records.length === RECORDS_KEPT) state.allRecords = false;
  }
  for (const e of events.rows) {
    const state = states.get(e.imei)!;
    state.events.unshift(shiftCandidate(e));
    if (state.events.length === EVENTS_KEPT) state.allEvents = false;
  }
  return states;
}

const recordBeforeSql = `select "date", model, "AverageCurrent1m", "ActualOngoingFault" from device_records
   where "IMEINumber" = $1 and "date" < $2 order by "date" desc limit 1`;

/** The device's latest stored record dated before `date` (none or one): the previous record of a check-in older than the held ones. */
export async function recordBefore(pool: pg.Pool, imei: string, date: string): Promise<RecordSummary[]> {
  const { rows } = await pool.query<RecordRow>(recordBeforeSql, [imei, date]);
  return rows.map(recordSummary);
}

interface RecordRow { date: Date; model: string | null; AverageCurrent1m: number | null; ActualOngoingFault: number }

const recordSummary = (r: RecordRow): RecordSummary => ({ date: r.date.toISOString(), model: r.model, AverageCurrent1m: r.AverageCurrent1m, ActualOngoingFault: r.ActualOngoingFault });

const candidatesBetweenSql = `select "EventID", "ReportedEventTimestamp" as ts, "EventType", "TimestampShifted" from event_records
   where "IMEINumber" = $1 and "EventType" in ${sqlTypeList(SHIFT_TYPES)} and "ReportedEventTimestamp" between $2 and $3
   order by "Event_Record_ID"`;

/** The device's stored shift candidates reported in [from, until] (ms): those a very late check-in's events may pair with. */
export async function shiftCandidatesBetween(pool: pg.Pool, imei: string, [from, until]: readonly [number, number]): Promise<StoredShiftCandidate[]> {
  const { rows } = await pool.query<CandidateRow>(candidatesBetweenSql, [imei, new Date(from), new Date(until)]);
  return rows.map(shiftCandidate);
}

interface CandidateRow { EventID: number; ts: Date; EventType: string; TimestampShifted: boolean }

const shiftCandidate = (e: CandidateRow): StoredShiftCandidate => ({ EventID: e.EventID, EventTimestamp: e.ts.toISOString(), EventType: e.EventType, shifted: e.TimestampShifted });
