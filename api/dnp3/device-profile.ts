// GET /api/dnp3/deviceProfile (admin): the DNP3 device profile (IEEE 1815 XML device-profile format) of the
// caller's organisation's DNP3 integration, generated from the running configuration by dnp3/profile/profile.ts.
// `?bank=N` describes bank N (one logical outstation per 8,000 devices, link address outstationAddress + N);
// default bank 0. No DNP3 integration: 404, there is nothing to describe.
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import type pg from 'pg';
import { integrationOutput, requireIntegrationReader } from '../auth/require-auth.js';
import type { AuthEnv } from '../auth/caller.js';
import { acceptOnly, ApiError, badParameter } from '../errors.js';
import { outstationConfigFor } from '../../dnp3/outstation/outstation.js';
import { deviceProfileXml } from '../../dnp3/profile/profile.js';
import { APP_VERSION } from '../../config/version.js';
import { organisationPointMap } from '../../dnp3/data/organisation-map.js';
import { devicesInReach } from '../device-records/reach.js';
import { getRoute } from '../read-route.js';
import { GET_DEVICE_PROFILE } from './endpoints.js';

/** `dnp3Port`: Settings.dnp3.port (DNP3_PORT), the port the profile states. */
export function deviceProfileRoutes({ pool, auth, dnp3Port }: { pool: pg.Pool; auth: MiddlewareHandler<AuthEnv>; dnp3Port: number }): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  getRoute(app, GET_DEVICE_PROFILE, [integrationOutput, auth, requireIntegrationReader], async (c) => {
    acceptOnly(c.req.queries(), ['bank']);
    const bankText = c.req.query('bank') ?? '0';
    if (!/^\d{1,6}$/.test(bankText)) throw badParameter('bank', 'must be a bank number (0, 1, ...) as listed by GET /api/dnp3/pointMap');
    const org = c.get('caller').org;
    const map = await organisationPointMap(pool, c.get('caller').org, devicesInReach(c.get('caller')));
    if (!map.integration) throw new ApiError('NOT_FOUND', `Organisation ${org} has no DNP3 integration: there is no outstation to describe.`);
    const bank = Number(bankText);
    if (bank >= map.banks.length) throw badParameter('bank', `the organisation has banks 0..${map.banks.length - 1}`);
    const xml = deviceProfileXml({
      integration: map.integration, sharedPort: dnp3Port, config: outstationConfigFor(map.integration),
      banks: map.banks, bank, points: map.points, softwareVersion: APP_VERSION, generatedAt: new Date().toISOString().slice(0, 10),
    });
    return c.body(xml, 200, {
      'content-type': 'application/xml; charset=utf-8',
      'content-disposition': `inline; filename="dnp3-device-profile-${map.integration.id.replace(/[^A-Za-z0-9_-]/g, '_')}-bank${bank}.xml"`,
    });
  });
  return app;
}
