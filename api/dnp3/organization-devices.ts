// GET /api/dnp3/dnp3OrganizationDevices (spec 4.1; admin only): the organisation's non-deleted devices for
// a SCADA / OMS integrator. Machine-facing, so timestamps are ISO 8601 UTC and the fault is a code plus
// its text, as in the DNP3 JSON output (docs/decisions.md). Not masked, even for an organisation with
// MaskFaultDetails: like DNP3 and MultiSpeak it feeds the utility's own systems (docs/decisions.md#masking).
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import type pg from 'pg';
import { batteryOrLineText, ongoingFaultText } from '../../domain/ongoing-fault-codes.js';
import { integrationOutput, requireIntegrationReader } from '../auth/require-auth.js';
import type { AuthEnv } from '../auth/caller.js';
import { organizationDevices } from './organization-devices-store.js';
import { getRoute } from '../read-route.js';
import { GET_ORGANIZATION_DEVICES } from './endpoints.js';

export function integrationRoutes({ pool, auth }: { pool: pg.Pool; auth: MiddlewareHandler<AuthEnv> }): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  getRoute(app, GET_ORGANIZATION_DEVICES, [integrationOutput, auth, requireIntegrationReader], async (c) => {
    const caller = c.get('caller');
    const rows = await organizationDevices(pool, caller);
    return c.json(rows.map((r) => ({
      IMEINumber: r.IMEINumber,
      Real_Name: r.Real_Name,
      Lat: r.Lat,
      Long: r.Long,
      PowerLineID: r.PowerLineID,
      PowerLineName: r.PowerLineName,
      serialNumber: r.serialNumber,
      dnp3QueueAddress: r.dnp3QueueAddress,
      // The device's stable point slot (docs/decisions.md#dnp3-outstation): null until the outstation or the
      // point map first assigned it (GET /api/dnp3/pointMap assigns every slot).
      dnp3Slot: r.dnp3Slot,
      LastCheckInTime: r.LastCheckInTime?.toISOString() ?? null,
      ActualOngoingFault: r.ActualOngoingFault,
      ActualOngoingFaultText: r.ActualOngoingFault === null ? null : ongoingFaultText(r.ActualOngoingFault),
      BatteryOrLine: r.BatteryOrLine === null ? null : batteryOrLineText(r.BatteryOrLine),
    })));
  });
  return app;
}
