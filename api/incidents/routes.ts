// GET /api/incidents and GET /api/incidents/:id (docs/decisions.md#feeder-incidents): the feeder incidents of
// the caller's organisation. An admin sees every one; a user those with a tripped indicator in one of the
// user's groups, and of their devices only those. The sections keep their stretch of the shared feeder (where
// the fault is, the incident's answer) but name only indicators in reach (section-reach.ts). Times are ISO 8601 UTC.
// The SQL is store.ts.
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import type pg from 'pg';
import type { AuthEnv } from '../auth/caller.js';
import { acceptOnly, ApiError, badParameter } from '../errors.js';
import { powerLineParameter } from '../request.js';
import type { FaultedSection } from '../../domain/faulted-section.js';
import { getRoute } from '../read-route.js';
import { causeHistory, historyFields } from './cause-store.js';
import { GET_INCIDENT, GET_INCIDENTS, GET_TOPOLOGY, INCIDENT_STATUSES } from './endpoints.js';
import { sectionPresenter, type ShowSections } from './section-reach.js';
import { feederTopology, incidentDevices, incidentTimeline, listIncidents, readIncident, type IncidentRow as Row } from './store.js';

const LIST_PARAMS = ['page', 'limit', 'status', 'powerLine'];

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

/** A whole-number query parameter within [min, max], `fallback` when absent; else a 400 naming it. */
export function integer(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!/^\d{1,9}$/.test(value) || Number(value) < min || Number(value) > max) throw badParameter(name, `must be a whole number from ${min} to ${max}.`);
  return Number(value);
}

const present = (r: Row, show: ShowSections) => ({
  id: Number(r.id), powerLineId: r.PowerLineID, powerLineName: r.powerLineName, status: r.status, kind: r.kind,
  firstTripAt: iso(r.first_trip_at), lastTripAt: iso(r.last_trip_at), openedAt: iso(r.opened_at), locatedAt: iso(r.located_at),
  restoredAt: iso(r.restored_at), closedAt: iso(r.closed_at), sections: show(r.sections), trippedDevices: Number(r.devices),
  cause: r.cause, majorEvent: r.major_event ?? false,
});

export function incidentRoutes({ pool, auth }: { pool: pg.Pool; auth: MiddlewareHandler<AuthEnv> }): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();

  getRoute(app, GET_INCIDENTS, [auth], async (c) => {
    acceptOnly(c.req.queries(), LIST_PARAMS, { repeatable: false });
    const page = integer(c.req.query('page'), 'page', 0, 0, 1_000_000);
    const limit = integer(c.req.query('limit'), 'limit', 50, 1, 500);
    const status = c.req.query('status');
    if (status !== undefined && !(INCIDENT_STATUSES as readonly string[]).includes(status)) throw badParameter('status', `must be one of ${INCIDENT_STATUSES.join(', ')}.`);
    const line = powerLineParameter(c);
    const caller = c.get('caller');
    const { rows, total } = await listIncidents(pool, caller, { status, line, limit, offset: page * limit });
    const show = await sectionPresenter(pool, caller, rows.map((r) => r.sections));
    return c.json({ data: rows.map((r) => present(r, show)), page, limit, total });
  });

  getRoute(app, GET_INCIDENT, [auth], async (c) => {
    acceptOnly(c.req.queries(), []);
    const id = c.req.param('id');
    const notFound = () => new ApiError('NOT_FOUND', 'No such incident.', { id: id.slice(0, 20) });
    if (!/^\d{1,15}$/.test(id)) throw notFound();
    const caller = c.get('caller');
    const row = await readIncident(pool, caller, id);
    if (!row) throw notFound();
    const [devices, timeline] = await Promise.all([incidentDevices(pool, caller, id), incidentTimeline(pool, id)]);
    // The timeline names only devices in reach (an admin's too: a device moved to another organisation is
    // no longer the admin's): trips of other devices are counted, not listed.
    const reachable = new Set(devices.map((d) => d.IMEINumber));
    // A located or moved section names its indicators as the incident's sections do.
    const sectionsOf = (detail: Record<string, unknown>) => (Array.isArray(detail.sections) ? detail.sections as FaultedSection[] : []);
    const show = await sectionPresenter(pool, caller, [row.sections, ...timeline.map((t) => sectionsOf(t.detail))]);
    const trimmed = (given: Record<string, unknown>) => {
      const detail = Array.isArray(given.sections) ? { ...given, sections: show(sectionsOf(given)) } : given;
      if (!Array.isArray(detail.trips)) return detail;
      const trips = (detail.trips as { imei: string }[]).filter((t) => reachable.has(t.imei));
      return { ...detail, trips, otherTrips: (detail.trips as unknown[]).length - trips.length };
    };
    return c.json({
      ...present(row, show),
      devices: devices.map((d) => ({ IMEINumber: d.IMEINumber, name: d.Real_Name, eventType: d.EventType, trippedAt: iso(d.tripped_at), phase: d.Phase, section: d.Section, Lat: d.Lat, Long: d.Long })),
      timeline: timeline.map((t) => ({ at: iso(t.at), what: t.what, detail: trimmed(t.detail) })),
      // The newest page; older ones from GET /api/incidents/:id/cause-history?before=causeHistoryNext (cause.ts).
      ...historyFields(await causeHistory(pool, id)),
    });
  });
  // The imported feeder topology of the devices in reach: the portal draws it instead of the approximate trace.
  getRoute(app, GET_TOPOLOGY, [auth], async (c) => {
    acceptOnly(c.req.queries(), []);
    const rows = await feederTopology(pool, c.get('caller'));
    return c.json({ data: rows });
  });
  return app;
}
