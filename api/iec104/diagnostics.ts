// GET /api/iec104/diagnostics (admin), the sibling of GET /api/dnp3/diagnostics: for each IEC 104 integration of
// the caller's organisation, the settings a master must match (identity, TLS, common addresses per bank, k, w,
// t0..t3), the same as sentences, and every refusal the station made, counted by reason with first and last
// time and the sentence that says what to change (iec104/diagnostics/reasons.ts; docs/iec104.md#5-what-the-master-did-wrong).
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import type pg from 'pg';
import { requireAdmin } from '../auth/require-auth.js';
import type { AuthEnv } from '../auth/caller.js';
import { acceptOnly, ApiError } from '../errors.js';
import { bankCommonAddress } from '../../iec104/data/point-map.js';
import { isRefusalReason, REFUSAL_REASONS } from '../../iec104/diagnostics/reasons.js';
import { iec104IntegrationFromRow, type Iec104Integration } from '../../iec104/identity.js';
import { readDiagnostics, type DiagnosticRow } from '../../integrations/diagnostics-ledger.js';
import { readIntegrations } from '../../integrations/store.js';
import { bankCount } from '../../points/banks.js';
import { assignPowerLineSlots } from '../../points/power-lines.js';
import { assignSlots, maxSlot } from '../../points/store.js';
import { DEFAULT_CONNECTION_LIMITS } from '../../integrations/master-listener.js';
import { getRoute } from '../read-route.js';
import { GET_IEC104_DIAGNOSTICS } from './endpoints.js';

const seconds = (ms: number) => ms / 1000;

/** What a master must be set to for this integration, one sentence each. `commonAddresses`: bank 0 first. */
export function expectedMasterSettings(i: Iec104Integration, commonAddresses: readonly number[]): string[] {
  const { k, w, t0Ms, t1Ms, t2Ms, t3Ms } = i.timers;
  const last = commonAddresses.length - 1;
  return [
    `TLS: ${i.tlsMinVersion === 'TLSv1.3' ? 'TLS 1.3' : 'TLS 1.2 or 1.3'} with a client certificate whose DNS SAN (or CN, when it has no DNS SAN) is "${i.masterIdentity}", `
      + (i.certificateMode === 'pinned' ? 'the very certificate this integration pins (pinnedCertificateFile).' : 'issued by the integration\'s CA (caFile, else the service CA).'),
    `Port: the station's IEC104_PORT (2404 unless the deployment sets it)${i.port ? `, or this integration's own port ${i.port}` : ''}; plain TCP is not served.`,
    `Common address (ASDU address, 2 octets): ${last === 0 ? `${commonAddresses[0]} (one bank)` : `${commonAddresses[0]} for bank 0 up to ${commonAddresses[last]} for bank ${last}, one per bank`}; 65535 (global) interrogates every bank. Cause of transmission 2 octets (with originator address), IOA 3 octets.`,
    `Start: STARTDT act before any I frame; of the integration's connections (up to 4, one redundancy group) the one started receives events, the others stand by.`,
    `Windows: this station sends at most k = ${k} I frames unacknowledged and acknowledges the master's after w = ${w}; the master's w should be at most two thirds of ${k} (clause 5.5) so it acknowledges before this station stops, and its k at least ${w}.`,
    `Timers: this station closes a connection whose I frame or TESTFR act it sent is not acknowledged within t1 = ${seconds(t1Ms)} s, acknowledges within t2 = ${seconds(t2Ms)} s, sends TESTFR act after t3 = ${seconds(t3Ms)} s idle, and cuts a connection without a ClientHello after ${seconds(DEFAULT_CONNECTION_LIMITS.helloTimeoutMs)} s or a TLS handshake after ${seconds(DEFAULT_CONNECTION_LIMITS.handshakeTimeoutMs)} s (the master's t0 = ${seconds(t0Ms)} s is its own); the master's t2 must be shorter than ${seconds(t1Ms)} s and its t1 longer than ${seconds(t2Ms)} s.`,
    'Commands: interrogation (C_IC_NA_1, QOI 20, or 21 and 22 for groups 1 and 2), read (C_RD_NA_1, cause 5), clock synchronisation (C_CS_NA_1) and the test command (C_TS_TA_1), as activation (cause 6), to IOA 0 except read; no other type is accepted (a fault indicator has no outputs).',
  ];
}

/** One integration's answer: its settings, the sentences, and its refusals with their sentences. */
export function integrationDiagnostics(i: Iec104Integration, banks: number, rows: readonly DiagnosticRow[]) {
  const commonAddresses = Array.from({ length: banks }, (_, b) => bankCommonAddress(i.commonAddress, b));
  const { k, w, t0Ms, t1Ms, t2Ms, t3Ms } = i.timers;
  return {
    id: i.id,
    masterIdentity: i.masterIdentity,
    certificateMode: i.certificateMode,
    tlsMinVersion: i.tlsMinVersion,
    port: i.port ?? null,
    commonAddresses: commonAddresses.map((commonAddress, bank) => ({ bank, commonAddress })),
    apci: { k, w, t0: seconds(t0Ms), t1: seconds(t1Ms), t2: seconds(t2Ms), t3: seconds(t3Ms) },
    expectedMasterSettings: expectedMasterSettings(i, commonAddresses),
    refusals: rows.filter((r) => r.integrationId === i.id && isRefusalReason(r.reason)).map((r) => ({
      reason: r.reason,
      meaning: REFUSAL_REASONS[r.reason as keyof typeof REFUSAL_REASONS],
      count: r.count,
      firstAt: r.firstAt.toISOString(),
      lastAt: r.lastAt.toISOString(),
    })),
  };
}

export function iec104DiagnosticsRoutes({ pool, auth }: { pool: pg.Pool; auth: MiddlewareHandler<AuthEnv> }): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  getRoute(app, GET_IEC104_DIAGNOSTICS, [auth, requireAdmin], async (c) => {
    acceptOnly(c.req.queries(), []);
    const org = c.get('caller').org;
    const integrations = (await readIntegrations(pool, { kind: 'iec104', organizationId: org })).map((r) => iec104IntegrationFromRow(r))
      .filter((i): i is Iec104Integration => i !== undefined);
    if (integrations.length === 0) throw new ApiError('NOT_FOUND', `Organisation ${org} has no IEC 104 integration: there is no station to diagnose.`);
    // The banks the station serves: slots assigned here too (as the point maps do), so the list is complete
    // before the station has ever run.
    await assignSlots(pool, org);
    await assignPowerLineSlots(pool, org);
    const banks = bankCount(await maxSlot(pool, org));
    const rows = await readDiagnostics(pool, 'iec104', integrations.map((i) => i.id));
    return c.json({ organizationId: org, integrations: integrations.map((i) => integrationDiagnostics(i, banks, rows)) });
  });
  return app;
}
