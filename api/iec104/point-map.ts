// GET /api/iec104/pointMap (admin): the caller's organisation's IEC 104 point map, JSON by default, CSV with
// `?format=csv` or `Accept: text/csv`: every point at its common address and IOA with the types the station sends
// it in and its interrogation group, so a master can be configured before go-live. The sibling of
// GET /api/dnp3/pointMap, from the same slots (points/organisation-map.ts). No iec104 integration: 404.
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import type pg from 'pg';
import { integrationOutput, requireIntegrationReader } from '../auth/require-auth.js';
import type { AuthEnv } from '../auth/caller.js';
import { ApiError } from '../errors.js';
import { organisationIec104Integration, organisationIec104PointMap } from '../../iec104/organisation-map.js';
import { iec104PointMapCsv } from '../../iec104/data/point-map-rows.js';
import type { Iec104Integration } from '../../iec104/identity.js';
import { devicesInReach } from '../device-records/reach.js';
import { csvAttachment, fileNamePart, formatParameter, wantsCsv } from '../request.js';
import { getRoute } from '../read-route.js';
import { GET_IEC104_POINT_MAP } from './endpoints.js';

/** The caller's organisation's iec104 integration, or the 404 that says there is none. */
export async function iec104IntegrationOf(pool: pg.Pool, org: string): Promise<Iec104Integration> {
  const integration = await organisationIec104Integration(pool, org);
  if (!integration) throw new ApiError('NOT_FOUND', `Organisation ${org} has no enabled IEC 104 integration (kind iec104): there is no station to describe. Import one (docs/iec104.md section 1).`);
  return integration;
}

export function iec104PointMapRoutes({ pool, auth }: { pool: pg.Pool; auth: MiddlewareHandler<AuthEnv> }): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  getRoute(app, GET_IEC104_POINT_MAP, [integrationOutput, auth, requireIntegrationReader], async (c) => {
    const format = formatParameter(c, ['json', 'csv'] as const);
    const caller = c.get('caller');
    const map = await organisationIec104PointMap(pool, await iec104IntegrationOf(pool, caller.org), devicesInReach(caller));
    if (wantsCsv(c, format)) {
      return c.body(iec104PointMapCsv(map.points), 200, csvAttachment(`iec104-point-map-${fileNamePart(map.integrationId)}.csv`));
    }
    return c.json({ organizationId: caller.org, ...map });
  });
  return app;
}
