// GET /api/dnp3/diagnostics (admin), beside pointMap and deviceProfile: for the caller's organisation's DNP3
// integration, every frame and request the outstation discarded or refused, counted by reason with the
// sentence that says what the master must do (dnp3/diagnostics/reasons.ts), and the master settings
// faultline expects (docs/commissioning.md#commissioning-a-scada-master-dnp3).
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import type pg from 'pg';
import { requireAdmin } from '../auth/require-auth.js';
import type { AuthEnv } from '../auth/caller.js';
import { acceptOnly, ApiError } from '../errors.js';
import { DISCARD_REASONS, isDiscardReason } from '../../dnp3/diagnostics/reasons.js';
import { integrationFromRow, type Dnp3Integration } from '../../dnp3/identity.js';
import { readDiagnostics } from '../../integrations/diagnostics-ledger.js';
import { readIntegrations } from '../../integrations/store.js';
import { getRoute } from '../read-route.js';
import { GET_DIAGNOSTICS } from './endpoints.js';

/** What a master must be set to for this integration, one sentence each. */
export function expectedMasterSettings(i: Dnp3Integration): string[] {
  return [
    `Link addresses: master (local) ${i.masterAddress}, outstation (remote) ${i.outstationAddress} for bank 0 and one more per bank (GET /api/dnp3/pointMap lists them).`,
    'Link layer: unconfirmed user data, or RESET_LINK_STATES before any confirmed user data (confirmed data before a reset is ignored without an answer).',
    i.unsolicited
      ? 'Unsolicited responses: on. Confirm every unsolicited response (the first is a null one at start-up), then ENABLE_UNSOLICITED for classes 1-3; or disable them in the master and poll.'
      : 'Unsolicited responses: off for this integration. Do not send ENABLE_UNSOLICITED (it is answered IIN2.0); poll class 1, 2, 3 events.',
    'Application confirms: CONFIRM every response that sets CON with its SEQ (events are deleted only then and reported again after 5 s without one).',
    'Time: sync when IIN1.4 NEED_TIME is set (LAN or non-LAN); event times are the devices\' own.',
    'Integrity poll (class 0 1 2 3) after IIN1.7 DEVICE_RESTART or IIN2.3 EVENT_BUFFER_OVERFLOW.',
  ];
}

export function diagnosticsRoutes({ pool, auth }: { pool: pg.Pool; auth: MiddlewareHandler<AuthEnv> }): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  getRoute(app, GET_DIAGNOSTICS, [auth, requireAdmin], async (c) => {
    acceptOnly(c.req.queries(), []);
    const org = c.get('caller').org;
    const integrations = (await readIntegrations(pool, { kind: 'dnp3', organizationId: org })).map(integrationFromRow).filter((i): i is Dnp3Integration => i !== undefined);
    if (integrations.length === 0) throw new ApiError('NOT_FOUND', `Organisation ${org} has no DNP3 integration: there is no outstation to diagnose.`);
    const discards = await readDiagnostics(pool, 'dnp3', integrations.map((i) => i.id));
    return c.json({
      organizationId: org,
      integrations: integrations.map((i) => ({
        id: i.id,
        outstationAddress: i.outstationAddress,
        masterAddress: i.masterAddress,
        unsolicited: i.unsolicited,
        expectedMasterSettings: expectedMasterSettings(i),
        discards: discards.filter((d) => d.integrationId === i.id && isDiscardReason(d.reason)).map((d) => ({
          reason: d.reason,
          layer: DISCARD_REASONS[d.reason as keyof typeof DISCARD_REASONS].layer,
          meaning: DISCARD_REASONS[d.reason as keyof typeof DISCARD_REASONS].text,
          count: d.count,
          firstAt: d.firstAt.toISOString(),
          lastAt: d.lastAt.toISOString(),
        })),
      })),
    });
  });
  return app;
}
