// GET /api/deenergised-sections (issue 44 point 4; docs/decisions.md#silent-device-triage): the possible
// de-energised sections silent-device triage opened (fleet-health/deenergised-sections.ts, migration 0035), for
// the board's readers and the map. Not fault incidents: no trip, no fault class, never in /api/incidents. An
// admin sees every one of the organisation; a user those with a silent indicator in reach, and of their
// indicators (the point, the one above it, the silent ones) only those in reach. The SQL is store.ts.
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import type pg from 'pg';
import type { AuthEnv } from '../auth/caller.js';
import { acceptOnly, badParameter } from '../errors.js';
import { powerLineParameter } from '../request.js';
import { integer } from '../incidents/routes.js';
import { OUTSIDE_REACH_LABEL } from '../../domain/section-reach.js';
import { getRoute } from '../read-route.js';
import { DEENERGISED_STATUSES, GET_DEENERGISED_SECTIONS } from './endpoints.js';
import { namedIndicators, readSections } from './store.js';


const iso = (d: Date | null) => (d === null ? null : d.toISOString());

export function deenergisedSectionRoutes({ pool, auth }: { pool: pg.Pool; auth: MiddlewareHandler<AuthEnv> }): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  getRoute(app, GET_DEENERGISED_SECTIONS, [auth], async (c) => {
    acceptOnly(c.req.queries(), ['status', 'powerLine', 'limit'], { repeatable: false });
    const status = c.req.query('status') ?? 'open';
    if (!(DEENERGISED_STATUSES as readonly string[]).includes(status)) throw badParameter('status', `must be one of ${DEENERGISED_STATUSES.join(', ')}.`);
    const line = powerLineParameter(c);
    const limit = integer(c.req.query('limit'), 'limit', 100, 1, 500);
    const caller = c.get('caller');
    const rows = await readSections(pool, caller, { status, line, limit });
    // The indicators named, in reach, with where they stand (the map places the section by them).
    const named = [...new Set(rows.flatMap((r) => [r.point_imei, ...(r.upstream_imei ? [r.upstream_imei] : []), ...r.devices.map((d) => d.imei)]))];
    const namedRows = await namedIndicators(pool, caller, named);
    const device = new Map(namedRows.filter((d) => d.in_reach).map((d) => [d.IMEINumber, d]));
    // A label naming an indicator outside reach ("below <it>") gives way, as an incident section's does (domain/section-reach.ts).
    const hidden = [...named.filter((imei) => !device.has(imei)), ...namedRows.filter((d) => !d.in_reach && d.Real_Name).map((d) => d.Real_Name!)];
    const labelShown = (label: string) => (hidden.some((h) => label.includes(h)) ? OUTSIDE_REACH_LABEL : label);
    const end = (imei: string | null) => {
      const d = imei === null ? undefined : device.get(imei);
      return d ? { IMEINumber: d.IMEINumber, name: d.Real_Name, Lat: d.Lat, Long: d.Long } : null;
    };
    return c.json({
      data: rows.map((r) => ({
        id: Number(r.id), powerLineId: r.PowerLineID, powerLineName: r.powerLineName, status: r.status, label: labelShown(r.label), phase: r.phase,
        point: end(r.point_imei), upstream: end(r.upstream_imei), silentSince: iso(r.silent_since), openedAt: iso(r.opened_at), closedAt: iso(r.closed_at),
        closedReason: r.closed_reason, silentDevices: r.devices.length,
        devices: r.devices.flatMap((x) => { const d = end(x.imei); return d ? [{ ...d, silentSince: x.silentSince }] : []; }),
      })),
    });
  });
  return app;
}
