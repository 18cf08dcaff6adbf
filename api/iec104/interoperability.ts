// GET /api/iec104/interoperability (admin): the IEC 60870-5-104 interoperability list (clause 9) of the caller's
// organisation's iec104 integration, generated from its running configuration and the station's own tables
// (iec104/profile/interoperability.ts). JSON by default, Markdown with `?format=markdown`. No integration: 404.
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import type pg from 'pg';
import { integrationOutput, requireIntegrationReader } from '../auth/require-auth.js';
import type { AuthEnv } from '../auth/caller.js';
import { DEFAULT_IEC104_PORT } from '../../config/settings.js';
import { interoperabilityList } from '../../iec104/profile/interoperability.js';
import { interoperabilityMarkdown } from '../../iec104/profile/markdown.js';
import { bankCount } from '../../points/banks.js';
import { maxSlot } from '../../points/store.js';
import { iec104IntegrationOf } from './point-map.js';
import { formatParameter } from '../request.js';
import { getRoute } from '../read-route.js';
import { GET_IEC104_INTEROPERABILITY } from './endpoints.js';

/** `iec104Port`: Settings.iec104Port (IEC104_PORT), the listener's port the list states. */
export function interoperabilityRoutes({ pool, auth, iec104Port = DEFAULT_IEC104_PORT }: { pool: pg.Pool; auth: MiddlewareHandler<AuthEnv>; iec104Port?: number }): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  getRoute(app, GET_IEC104_INTEROPERABILITY, [integrationOutput, auth, requireIntegrationReader], async (c) => {
    const format = formatParameter(c, ['json', 'markdown'] as const);
    const i = await iec104IntegrationOf(pool, c.get('caller').org);
    const list = interoperabilityList({
      integrationId: i.id, commonAddress: i.commonAddress, banks: bankCount(await maxSlot(pool, i.organizationId)), timers: i.timers,
      tlsMinVersion: i.tlsMinVersion, certificateMode: i.certificateMode, sharedPort: iec104Port, ...(i.port ? { dedicatedPort: i.port } : {}), analogOnly: i.analogOnly,
    });
    if (format === 'markdown') return c.body(interoperabilityMarkdown(list, { title: true }), 200, { 'content-type': 'text/markdown; charset=utf-8' });
    return c.json(list);
  });
  return app;
}
