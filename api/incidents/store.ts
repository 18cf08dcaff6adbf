// The SQL of the incident routes (routes.ts, cause.ts) and of the reliability reads that share their reach: which
// incidents a caller sees, the list and one incident with its trips and timeline, the feeder topology, and the
// recording of causes. Routers hold no SQL (test/structure/api-routers.test.ts).
import type pg from 'pg';
import type { Caller } from '../auth/caller.js';
import { reachCondition } from '../device-records/reach.js';
import { SqlParams } from '../device-records/sql.js';
import type { FaultedSection } from '../../domain/faulted-section.js';

type Db = Pick<pg.ClientBase, 'query'>;

/** The incidents the caller may see: of the organisation, and for a user with a tripped device in reach. */
export function visible(caller: Caller, p: SqlParams): string {
  const org = `i."OrganizationID" = ${p.add(caller.org)}::text`;
  if (caller.role === 'admin') return org;
  return `${org} and exists (select 1 from incident_devices x join device_information d on d."IMEINumber" = x."IMEINumber"
                             where x.incident_id = i.id and ${tripInReach(caller, p)})`;
}

/** A trip `x` the caller may see: its device in reach, tripped since the device joined the organisation (an admin's too). */
export const tripInReach = (caller: Caller, p: SqlParams): string => reachCondition(caller, p, 'd', 'x.tripped_at');

export interface IncidentRow {
  id: string; PowerLineID: string; powerLineName: string | null; status: string; kind: string; first_trip_at: Date; last_trip_at: Date;
  opened_at: Date; located_at: Date | null; restored_at: Date | null; closed_at: Date | null; sections: FaultedSection[]; devices: number; total?: number;
  cause: string | null; major_event: boolean | null;
}

function selectIncidents(caller: Caller, p: SqlParams): string {
  const reach = tripInReach(caller, p);
  return `select i.id, i."PowerLineID", pl.name as "powerLineName", i.status, i.kind, i.first_trip_at, i.last_trip_at, i.opened_at, i.located_at,
                 i.restored_at, i.closed_at, i.sections,
                 (select count(*)::int from incident_devices x join device_information d on d."IMEINumber" = x."IMEINumber"
                   where x.incident_id = i.id and ${reach}) as devices,
                 c.cause, c.major_event
            from incidents i join power_lines pl on pl."Id" = i."PowerLineID"
            -- The cause recorded last (cause.ts; docs/reliability-export.md#causes).
            left join lateral (select cause, major_event from incident_cause_changes k where k.incident_id = i.id order by k.id desc limit 1) c on true`;
}


/** Which of the caller's incidents a list shows: `active` is every status but closed. */
function listWhere(caller: Caller, p: SqlParams, status: string | undefined, line: string | undefined): string {
  const where = [visible(caller, p)];
  if (status === 'active') where.push(`i.status <> 'closed'`);
  else if (status !== undefined) where.push(`i.status = ${p.add(status)}::text`);
  if (line !== undefined) where.push(`i."PowerLineID" = ${p.add(line)}::text`);
  return where.join(' and ');
}

/** A page of the caller's incidents, newest first, and how many there are in all. */
export async function listIncidents(pool: pg.Pool, caller: Caller, { status, line, limit, offset }: { status: string | undefined; line: string | undefined; limit: number; offset: number }): Promise<{ rows: IncidentRow[]; total: number }> {
  const p = new SqlParams();
  const sql = `${selectIncidents(caller, p)} where ${listWhere(caller, p, status, line)} order by i.id desc limit ${p.add(limit)}::int offset ${p.add(offset)}::int`;
  const count = new SqlParams();
  const [rows, total] = await Promise.all([
    pool.query<IncidentRow>(sql, p.values),
    pool.query<{ n: number }>(`select count(*)::int as n from incidents i where ${listWhere(caller, count, status, line)}`, count.values),
  ]);
  return { rows: rows.rows, total: total.rows[0]?.n ?? 0 };
}

/** Incident `id` if the caller sees it. */
export async function readIncident(db: Db, caller: Caller, id: string): Promise<IncidentRow | undefined> {
  const p = new SqlParams();
  const { rows: [row] } = await db.query<IncidentRow>(`${selectIncidents(caller, p)} where i.id = ${p.add(id)}::bigint and ${visible(caller, p)}`, p.values);
  return row;
}

/** The tripped devices of incident `id` in the caller's reach, in trip order. */
export async function incidentDevices(db: Db, caller: Caller, id: string) {
  const dp = new SqlParams();
  const { rows } = await db.query<{ IMEINumber: string; Real_Name: string | null; EventType: string; tripped_at: Date; Phase: string | null; Section: string | null; Lat: number | null; Long: number | null }>(
    `select x."IMEINumber", d."Real_Name", x."EventType", x.tripped_at, d."Phase", d."Section", d."Lat", d."Long"
       from incident_devices x join device_information d on d."IMEINumber" = x."IMEINumber"
      where x.incident_id = ${dp.add(id)}::bigint and ${tripInReach(caller, dp)}
      order by x.tripped_at, x."IMEINumber"`,
    dp.values,
  );
  return rows;
}

/** Incident `id`'s timeline, oldest first (the route trims it to the caller's reach). */
export async function incidentTimeline(db: Db, id: string) {
  const { rows } = await db.query<{ at: Date; what: string; detail: Record<string, unknown> }>(
    'select at, what, detail from incident_timeline where incident_id = $1 order by id', [id],
  );
  return rows;
}

/** The imported feeder topology of the devices in the caller's reach. */
export async function feederTopology(db: Db, caller: Caller): Promise<Record<string, unknown>[]> {
  const p = new SqlParams();
  const { rows } = await db.query(
    `select d."IMEINumber", d."PowerLineID", d."UpstreamIMEI", d."Phase", d."Section" from device_information d
      where d."Phase" is not null and ${reachCondition(caller, p)} order by d."PowerLineID", d."IMEINumber"`,
    p.values,
  );
  return rows as Record<string, unknown>[];
}

/** True when the caller sees incident `id`; `lock`: its row is locked for the transaction (causes are counted under it). */
export async function incidentSeen(db: Db, caller: Caller, id: string, { lock = false } = {}): Promise<boolean> {
  const p = new SqlParams();
  const { rowCount } = await db.query(`select i.id from incidents i where i.id = ${p.add(id)}::bigint and ${visible(caller, p)}${lock ? ' for update of i' : ''}`, p.values);
  return (rowCount ?? 0) > 0;
}

/** How many causes are recorded for incident `id`. */
export async function causeRecordCount(db: Db, id: string): Promise<number> {
  const { rows: [kept] } = await db.query<{ n: number }>('select count(*)::int as n from incident_cause_changes where incident_id = $1', [id]);
  return kept?.n ?? 0;
}

/** Records a cause of incident `id` (kept beside the earlier ones: the history is the audit). */
export async function recordCause(db: Db, id: string, r: { cause: string; majorEvent: boolean; note: string | null; by: string; userId: number | null; at: Date }): Promise<void> {
  await db.query(
    `insert into incident_cause_changes (incident_id, cause, major_event, note, set_by, set_by_user, set_at) values ($1, $2, $3, $4, $5, $6, $7)`,
    [id, r.cause, r.majorEvent, r.note, r.by, r.userId, r.at]);
}

/** Stores the organisation's list of causes (replacing its last). */
export async function saveCauseList(db: Db, org: string, causes: string[], by: string, at: Date): Promise<void> {
  await db.query(
    `insert into incident_cause_lists ("OrganizationID", causes, updated_by, updated_at) values ($1, $2, $3, $4)
     on conflict ("OrganizationID") do update set causes = excluded.causes, updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
    [org, causes, by, at]);
}
