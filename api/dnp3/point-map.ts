// GET /api/dnp3/pointMap (admin): the caller's organisation's point map, JSON by default, CSV with
// `?format=csv` or `Accept: text/csv`, so SCADA engineers can configure their master before go-live.
// Every row names its bank and link address; the JSON lists the banks (one master association each).
// Mount with the API's auth middleware: app.route('/', pointMapRoutes({ pool, auth })); it carries
// GET /api/dnp3/deviceProfile (device-profile.ts) and GET /api/dnp3/diagnostics (diagnostics.ts) beside it.
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import type pg from 'pg';
import { DEFAULT_DNP3_PORT } from '../../config/settings.js';
import { integrationOutput, requireIntegrationReader } from '../auth/require-auth.js';
import type { AuthEnv } from '../auth/caller.js';
import { organisationPointMap } from '../../dnp3/data/organisation-map.js';
import { pointMapCsv } from '../../dnp3/data/point-map.js';
import { devicesInReach } from '../device-records/reach.js';
import { deviceProfileRoutes } from './device-profile.js';
import { diagnosticsRoutes } from './diagnostics.js';
import { csvAttachment, fileNamePart, formatParameter, wantsCsv } from '../request.js';
import { getRoute } from '../read-route.js';
import { GET_POINT_MAP } from './endpoints.js';

/** `dnp3Port`: Settings.dnp3.port (DNP3_PORT), stated by the device profile. */
export function pointMapRoutes({ pool, auth, dnp3Port = DEFAULT_DNP3_PORT }: { pool: pg.Pool; auth: MiddlewareHandler<AuthEnv>; dnp3Port?: number }): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  getRoute(app, GET_POINT_MAP, [integrationOutput, auth, requireIntegrationReader], async (c) => {
    const format = formatParameter(c, ['json', 'csv'] as const);
    const org = c.get('caller').org;
    const { integration, analogOnly, outstationAddress, banks, points } = await organisationPointMap(pool, org, devicesInReach(c.get('caller')));
    if (wantsCsv(c, format)) {
      return c.body(pointMapCsv(points), 200, csvAttachment(`dnp3-point-map-${fileNamePart(org)}.csv`));
    }
    return c.json({
      organizationId: org,
      outstationAddress,
      masterAddress: integration?.masterAddress ?? 1,
      analogOnly,
      banks,
      points,
    });
  });
  app.route('/', deviceProfileRoutes({ pool, auth, dnp3Port }));
  app.route('/', diagnosticsRoutes({ pool, auth }));
  return app;
}
