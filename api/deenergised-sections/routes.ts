// GET /api/deenergised-sections (issue 44 point 4; docs/decisions.md#silent-device-triage): the possible
// de-energised sections silent-device triage opened (fleet-health/deenergised-sections.ts, migration 0035), for
// the board's readers and the map. Not fault incidents: no trip, no fault class, never in /api/incidents. An
// admin sees every one of the organisation; a user those with a silent indicator in reach, and of their
// indicators (the point, the one above it, the silent ones) only those in reach.
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import type pg from 'pg';
import type { AuthEnv } from '../auth/caller.js';
import { reachCondition } from '../device-records/reach.js';
import { SqlParams } from '../device-records/sql.js';
import { acceptOnly, badParameter } from '../errors.js';
import { integer } from '../incidents/routes.js';
import { OUTSIDE_REACH_LABEL } from '../../domain/section-reach.js';

export const DEENERGISED_SECTIONS_PATH = '/api/deenergised-sections';
export const DEENERGISED_STATUSES = ['open', 'closed', 'all'] as const;

interface Row {
  id: string; PowerLineID: string; powerLineName: string | null; point_imei: string; upstream_imei: string | null; phase: string; label: string;
  devices: { imei: string; name: string | null; silentSince: string }[]; silent_since: Date; status: string; opened_at: Date; closed_at: Date | null; closed_reason: string | null;
}

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

export function deenergisedSectionRoutes({ pool, auth }: { pool: pg.Pool; auth: MiddlewareHandler<AuthEnv> }): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  app.get(DEENERGISED_SECTIONS_PATH, auth, async (c) => {
    acceptOnly(c.req.queries(), ['status', 'powerLine', 'limit'], { repeatable: false });
    const status = c.req.query('status') ?? 'open';
    if (!(DEENERGISED_STATUSES as readonly string[]).includes(status)) throw badParameter('status', `must be one of ${DEENERGISED_STATUSES.join(', ')}.`);
    const line = c.req.query('powerLine');
    if (line !== undefined && (line.length === 0 || line.length > 100)) throw badParameter('powerLine', 'must be a power line id (1 to 100 characters).');
    const limit = integer(c.req.query('limit'), 'limit', 100, 1, 500);
    const caller = c.get('caller');
    const p = new SqlParams();
    const where = [`s."OrganizationID" = ${p.add(caller.org)}::text`,
      `exists (select 1 from jsonb_array_elements(s.devices) x join device_information d on d."IMEINumber" = x->>'imei' where ${reachCondition(caller, p)})`];
    if (status !== 'all') where.push(`s.status = ${p.add(status)}::text`);
    if (line !== undefined) where.push(`s."PowerLineID" = ${p.add(line)}::text`);
    const { rows } = await pool.query<Row>(
      `select s.id, s."PowerLineID", pl.name as "powerLineName", s.point_imei, s.upstream_imei, s.phase, s.label, s.devices, s.silent_since, s.status,
              s.opened_at, s.closed_at, s.closed_reason
         from deenergised_sections s join power_lines pl on pl."Id" = s."PowerLineID"
        where ${where.join(' and ')} order by s.id desc limit ${p.add(limit)}::int`, p.values);
    // The indicators named, in reach, with where they stand (the map places the section by them).
    const named = [...new Set(rows.flatMap((r) => [r.point_imei, ...(r.upstream_imei ? [r.upstream_imei] : []), ...r.devices.map((d) => d.imei)]))];
    const q = new SqlParams();
    const { rows: namedRows } = await pool.query<{ IMEINumber: string; Real_Name: string | null; Lat: number | null; Long: number | null; in_reach: boolean }>(
      `select d."IMEINumber", d."Real_Name", d."Lat", d."Long", (${reachCondition(caller, q)}) as in_reach
         from device_information d where d."IMEINumber" = any(${q.add(named)}::text[])`, q.values);
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
