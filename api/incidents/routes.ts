// GET /api/incidents and GET /api/incidents/:id (docs/decisions.md#feeder-incidents): the feeder incidents of
// the caller's organisation. An admin sees every one; a user those with a tripped indicator in one of the
// user's groups, and of their devices only those. The sections keep their stretch of the shared feeder (where
// the fault is, the incident's answer) but name only indicators in reach (section-reach.ts). Times are ISO 8601 UTC.
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import type pg from 'pg';
import type { AuthEnv, Caller } from '../auth/caller.js';
import { reachCondition } from '../device-records/reach.js';
import { SqlParams } from '../device-records/sql.js';
import { acceptOnly, ApiError, badParameter } from '../errors.js';
import type { FaultedSection } from '../../domain/faulted-section.js';
import { causeHistory, historyFields } from './cause-store.js';
import { sectionPresenter, type ShowSections } from './section-reach.js';

export const INCIDENTS_PATH = '/api/incidents';
export const INCIDENT_PATH = '/api/incidents/:id';
export const TOPOLOGY_PATH = '/api/feeder-topology';
export const INCIDENT_STATUSES = ['open', 'located', 'restored', 'closed', 'active'] as const;
const LIST_PARAMS = ['page', 'limit', 'status', 'powerLine'];

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

/** A whole-number query parameter within [min, max], `fallback` when absent; else a 400 naming it. */
export function integer(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!/^\d{1,9}$/.test(value) || Number(value) < min || Number(value) > max) throw badParameter(name, `must be a whole number from ${min} to ${max}.`);
  return Number(value);
}

/** The incidents the caller may see: of the organisation, and for a user with a tripped device in reach. */
export function visible(caller: Caller, p: SqlParams): string {
  const org = `i."OrganizationID" = ${p.add(caller.org)}::text`;
  if (caller.role === 'admin') return org;
  return `${org} and exists (select 1 from incident_devices x join device_information d on d."IMEINumber" = x."IMEINumber"
                             where x.incident_id = i.id and ${tripInReach(caller, p)})`;
}

/** A trip `x` the caller may see: its device in reach, tripped since the device joined the organisation (an admin's too). */
export const tripInReach = (caller: Caller, p: SqlParams): string => reachCondition(caller, p, 'd', 'x.tripped_at');

interface Row {
  id: string; PowerLineID: string; powerLineName: string | null; status: string; kind: string; first_trip_at: Date; last_trip_at: Date;
  opened_at: Date; located_at: Date | null; restored_at: Date | null; closed_at: Date | null; sections: FaultedSection[]; devices: number; total?: number;
  cause: string | null; major_event: boolean | null;
}

const present = (r: Row, show: ShowSections) => ({
  id: Number(r.id), powerLineId: r.PowerLineID, powerLineName: r.powerLineName, status: r.status, kind: r.kind,
  firstTripAt: iso(r.first_trip_at), lastTripAt: iso(r.last_trip_at), openedAt: iso(r.opened_at), locatedAt: iso(r.located_at),
  restoredAt: iso(r.restored_at), closedAt: iso(r.closed_at), sections: show(r.sections), trippedDevices: Number(r.devices),
  cause: r.cause, majorEvent: r.major_event ?? false,
});

function select(caller: Caller, p: SqlParams): string {
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

export function incidentRoutes({ pool, auth }: { pool: pg.Pool; auth: MiddlewareHandler<AuthEnv> }): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();

  app.get(INCIDENTS_PATH, auth, async (c) => {
    acceptOnly(c.req.queries(), LIST_PARAMS, { repeatable: false });
    const page = integer(c.req.query('page'), 'page', 0, 0, 1_000_000);
    const limit = integer(c.req.query('limit'), 'limit', 50, 1, 500);
    const status = c.req.query('status');
    if (status !== undefined && !(INCIDENT_STATUSES as readonly string[]).includes(status)) throw badParameter('status', `must be one of ${INCIDENT_STATUSES.join(', ')}.`);
    const line = c.req.query('powerLine');
    if (line !== undefined && (line.length === 0 || line.length > 100)) throw badParameter('powerLine', 'must be a power line id (1 to 100 characters).');
    const caller = c.get('caller');
    const p = new SqlParams();
    const where = [visible(caller, p)];
    if (status === 'active') where.push(`i.status <> 'closed'`);
    else if (status !== undefined) where.push(`i.status = ${p.add(status)}::text`);
    if (line !== undefined) where.push(`i."PowerLineID" = ${p.add(line)}::text`);
    const sql = `${select(caller, p)} where ${where.join(' and ')} order by i.id desc limit ${p.add(limit)}::int offset ${p.add(page * limit)}::int`;
    const count = new SqlParams();
    const countWhere = [visible(caller, count)];
    if (status === 'active') countWhere.push(`i.status <> 'closed'`);
    else if (status !== undefined) countWhere.push(`i.status = ${count.add(status)}::text`);
    if (line !== undefined) countWhere.push(`i."PowerLineID" = ${count.add(line)}::text`);
    const [rows, total] = await Promise.all([
      pool.query<Row>(sql, p.values),
      pool.query<{ n: number }>(`select count(*)::int as n from incidents i where ${countWhere.join(' and ')}`, count.values),
    ]);
    const show = await sectionPresenter(pool, caller, rows.rows.map((r) => r.sections));
    return c.json({ data: rows.rows.map((r) => present(r, show)), page, limit, total: total.rows[0]?.n ?? 0 });
  });

  app.get(INCIDENT_PATH, auth, async (c) => {
    acceptOnly(c.req.queries(), []);
    const id = c.req.param('id');
    const notFound = () => new ApiError('NOT_FOUND', 'No such incident.', { id: id.slice(0, 20) });
    if (!/^\d{1,15}$/.test(id)) throw notFound();
    const caller = c.get('caller');
    const p = new SqlParams();
    const { rows: [row] } = await pool.query<Row>(`${select(caller, p)} where i.id = ${p.add(id)}::bigint and ${visible(caller, p)}`, p.values);
    if (!row) throw notFound();
    const dp = new SqlParams();
    const devices = await pool.query<{ IMEINumber: string; Real_Name: string | null; EventType: string; tripped_at: Date; Phase: string | null; Section: string | null; Lat: number | null; Long: number | null }>(
      `select x."IMEINumber", d."Real_Name", x."EventType", x.tripped_at, d."Phase", d."Section", d."Lat", d."Long"
         from incident_devices x join device_information d on d."IMEINumber" = x."IMEINumber"
        where x.incident_id = ${dp.add(id)}::bigint and ${tripInReach(caller, dp)}
        order by x.tripped_at, x."IMEINumber"`,
      dp.values,
    );
    const timeline = await pool.query<{ at: Date; what: string; detail: Record<string, unknown> }>(
      'select at, what, detail from incident_timeline where incident_id = $1 order by id', [id],
    );
    // The timeline names only devices in reach (an admin's too: a device moved to another organisation is
    // no longer the admin's): trips of other devices are counted, not listed.
    const reachable = new Set(devices.rows.map((d) => d.IMEINumber));
    // A located or moved section names its indicators as the incident's sections do.
    const sectionsOf = (detail: Record<string, unknown>) => (Array.isArray(detail.sections) ? detail.sections as FaultedSection[] : []);
    const show = await sectionPresenter(pool, caller, [row.sections, ...timeline.rows.map((t) => sectionsOf(t.detail))]);
    const trimmed = (given: Record<string, unknown>) => {
      const detail = Array.isArray(given.sections) ? { ...given, sections: show(sectionsOf(given)) } : given;
      if (!Array.isArray(detail.trips)) return detail;
      const trips = (detail.trips as { imei: string }[]).filter((t) => reachable.has(t.imei));
      return { ...detail, trips, otherTrips: (detail.trips as unknown[]).length - trips.length };
    };
    return c.json({
      ...present(row, show),
      devices: devices.rows.map((d) => ({ IMEINumber: d.IMEINumber, name: d.Real_Name, eventType: d.EventType, trippedAt: iso(d.tripped_at), phase: d.Phase, section: d.Section, Lat: d.Lat, Long: d.Long })),
      timeline: timeline.rows.map((t) => ({ at: iso(t.at), what: t.what, detail: trimmed(t.detail) })),
      // The newest page; older ones from GET /api/incidents/:id/cause-history?before=causeHistoryNext (cause.ts).
      ...historyFields(await causeHistory(pool, id)),
    });
  });
  // The imported feeder topology of the devices in reach: the portal draws it instead of the approximate trace.
  app.get(TOPOLOGY_PATH, auth, async (c) => {
    acceptOnly(c.req.queries(), []);
    const p = new SqlParams();
    const { rows } = await pool.query(
      `select d."IMEINumber", d."PowerLineID", d."UpstreamIMEI", d."Phase", d."Section" from device_information d
        where d."Phase" is not null and ${reachCondition(c.get('caller'), p)} order by d."PowerLineID", d."IMEINumber"`,
      p.values,
    );
    return c.json({ data: rows });
  });
  return app;
}
