// The HTTP application: one Hono app composed of a router per capability (health, auth, integration REST,
// device-records, OpenAPI). One onError renders every error (errors.ts). Every router gets the one `auth`
// made here (createAuth): the bearer token or integration key, then the fault mask of the caller's organisation
// (fault-mask-policy.ts).
import { Hono } from 'hono';
import type { Context, MiddlewareHandler } from 'hono';
import type { AuthEnv } from './auth/caller.js';
import type pg from 'pg';
import { codeText, type CodeStrings } from '../domain/code-strings.js';
import { cachedCallers, pgAccountStore } from './auth/accounts.js';
import { loginRoutes } from './auth/login-route.js';
import { LoginLimiter, type LoginLimitOptions } from './auth/rate-limit.js';
import { loginCheck } from './auth/login-check.js';
import type { HashGate } from './auth/hash-gate.js';
import { requireAuth } from './auth/require-auth.js';
import { createTokenService } from './auth/tokens.js';
import { cachedTokens } from './auth/token-cache.js';
import { withFaultMask } from './fault-mask-policy.js';
import { pgIntegrationKeyStore } from './auth/integration-keys.js';
import { keyCheck } from './auth/key-check.js';
import { integrationKeyRoutes } from './integration-keys/routes.js';
import { socketAddress } from './client-address.js';
import { loadCodeStrings } from './device-records/code-strings-file.js';
import { READ_PREFIXES } from './device-records/endpoints.js';
import { totalsCache, type ReadDeps } from './device-records/endpoint.js';
import { deviceRecordRoutes } from './device-records/routes.js';
import { FLEET_ENDPOINTS } from './fleet/endpoints.js';
import { renderError, notFound } from './errors.js';
import { healthRoutes, type ReadinessCheck } from './health/routes.js';
import { integrationRoutes } from './dnp3/organization-devices.js';
import { openApiDocument } from './openapi/document.js';
import { soapRoutes } from './soap/routes.js';
import { incidentRoutes } from './incidents/routes.js';
import { indicatorAuditRoutes } from './indicator-audit/routes.js';

import { incidentCauseRoutes } from './incidents/cause.js';
import { reliabilityExportRoutes } from './reliability/export.js';
import { reliabilityRoutes } from './reliability/routes.js';
import { pointMapRoutes } from './dnp3/point-map.js';
import { iec104PointMapRoutes } from './iec104/point-map.js';
import { interoperabilityRoutes } from './iec104/interoperability.js';
import { iec104DiagnosticsRoutes } from './iec104/diagnostics.js';
import { portalRoutes } from './portal-static.js';
import { opsRoutes } from './ops-routes.js';
import { shortCache } from './device-records/short-cache.js';
import { UnchangedAnswers } from './device-records/unchanged-answers.js';
import { alarmRoutes } from './alarms/routes.js';
import { boardRoutes } from './board/routes.js';
import { deenergisedSectionRoutes } from './deenergised-sections/routes.js';
import type { Keyring } from '../secrets/keyring.js';
import { DEFAULT_DNP3_PORT, type WebhookAllowance } from '../config/settings.js';
import { testFaultRoutes } from './test-faults/routes.js';
import { portalSettingsRoutes } from './portal-settings.js';
import type { MapTiles } from '../config/map-tiles.js';
import type { TestFaultQueue } from '../commissioning/queue.js';

export interface AppOptions {
  readiness: Record<string, ReadinessCheck>;
  /** True once the process drains (SIGTERM): /readyz answers 503 `draining`. */
  draining?: () => boolean;
  pool: pg.Pool;
  /** HS256 key, at least 32 bytes (auth/jwt-secret.ts resolves it from JWT_SECRET or DATA_DIR). */
  jwtSecret: Uint8Array;
  /** State / FaultType strings (loadCodeStrings(Settings.codeStringsFile)); default: schemas/config/code-strings.json. */
  codeStrings?: CodeStrings;
  /** Settings.offlineAfterHours (OFFLINE_AFTER_HOURS, default 26). */
  offlineAfterHours?: number;
  /** Settings.alarms.checkinFloorS (CHECKIN_INTERVAL_FLOOR_MINUTES): with the above, the communication-lost rule. */
  checkinFloorS?: number;
  loginLimits?: LoginLimitOptions;
  /** Bound on concurrent password checks (auth/hash-gate.ts); default one sized to the cores. */
  hashGate?: HashGate;
  /** Address for the per-address login limit; default the socket peer (client-address.ts clientAddressBehind). */
  clientAddress?: (c: Context) => string;
  /** Clock (epoch ms) for tokens, limits, caches and online/offline; tests pass a fixed one. */
  now?: () => number;
  /** How long a token's account (role, organisation, MaskFaultDetails) is reused; 0 reads it on every request. */
  accountCacheMs?: number;
  /** How long a fleet-wide answer (map-data, device-summary), a large page total and a critical-data walk are reused; 0: computed on every request. */
  readCacheMs?: number;
  /** Alarm routes: the keyring that seals webhook secrets (null: none configured) and the webhook ranges allowed. */
  alarms?: { keyring: Keyring | null; webhookAllow: readonly WebhookAllowance[]; chatterShelveMaxMinutes?: number };
  /** false: /metrics and /openapi.json are not on this app (METRICS_PORT serves them: ops-routes.ts createOpsApp). */
  opsRoutes?: boolean;
  /** Directory of the built web portal (portal-static.ts); default portal/dist; null serves no portal. */
  portalDir?: string | null;
  /** The portal map's tile server (MAP_TILE_URL, config/map-tiles.ts), served by GET /api/portal-settings; null: none. */
  mapTiles?: MapTiles | null;
  /** Where test faults send their check-ins (none: POST /api/test-faults answers 503) and their default clear time. */
  testFaults?: { queue: TestFaultQueue | null; clearAfterMs: number };
  /** Settings.dnp3.port (DNP3_PORT): the port the DNP3 device profile states; default 20000. */
  dnp3Port?: number;
  /** Settings.iec104Port (IEC104_PORT): the port the IEC 104 interoperability list states; default 2404. */
  iec104Port?: number;
}

/** What the one `auth` is made of (the AppOptions of the same names; `limiter`: the one logins count in). */
export type AuthOptions = Pick<AppOptions, 'pool' | 'jwtSecret' | 'codeStrings' | 'now' | 'accountCacheMs' | 'clientAddress'> & { limiter?: LoginLimiter };

/**
 * The one `auth` middleware every router gets: the bearer (a person's token, or an integration key on the
 * integration outputs only), then the fault mask of the caller's organisation. Exported so a test can put a route of its own behind exactly this chain
 * (test/security/mask-oracle.test.ts).
 */
export function createAuth({
  pool, jwtSecret, codeStrings = loadCodeStrings(), now = Date.now, accountCacheMs = 5_000, clientAddress = socketAddress, limiter = new LoginLimiter(),
}: AuthOptions): MiddlewareHandler<AuthEnv> {
  const nowS = () => Math.floor(now() / 1000);
  const tokens = cachedTokens(createTokenService({ secret: jwtSecret, nowS }), { nowS });
  const accounts = cachedCallers(pgAccountStore(pool), { ttlMs: accountCacheMs, now });
  const keys = { check: keyCheck({ keys: pgIntegrationKeyStore(pool), limiter, now }), clientAddress };
  return withFaultMask(requireAuth({ tokens, accounts, keys }), { faultTypeNone: codeText(codeStrings.FaultType, 0)! });
}

/**
 * @example
 *   const app = createApp({ readiness: {}, pool, jwtSecret: resolveJwtSecret({ configured: settings.jwtSecret, dataDir }) });
 *   await listen(app, { port: 8080, hostname: '0.0.0.0' });
 */
export function createApp({
  readiness, draining, pool, jwtSecret, codeStrings = loadCodeStrings(), offlineAfterHours = 26, checkinFloorS, loginLimits, hashGate,
  clientAddress = socketAddress, now = Date.now, accountCacheMs = 5_000, readCacheMs = 1_000, portalDir, opsRoutes: withOps = true, alarms = { keyring: null, webhookAllow: [] }, testFaults = { queue: null, clearAfterMs: 120_000 }, mapTiles = null,
  dnp3Port = DEFAULT_DNP3_PORT, iec104Port,
}: AppOptions): Hono {
  const tokens = createTokenService({ secret: jwtSecret, nowS: () => Math.floor(now() / 1000) });
  const accounts = pgAccountStore(pool);
  // One failed-credential limit for REST and SOAP logins and integration keys; one hash gate for the passwords.
  const limiter = new LoginLimiter(loginLimits);
  const auth = createAuth({ pool, jwtSecret, codeStrings, now, accountCacheMs, clientAddress, limiter });
  const document = openApiDocument({ codeStrings });
  const check = loginCheck({ accounts, limiter, ...(hashGate ? { gate: hashGate } : {}), now });

  const app = new Hono();
  app.route('/', healthRoutes(readiness, { draining }));
  app.route('/', loginRoutes({ tokens, accounts, check, clientAddress }));
  app.route('/', integrationRoutes({ pool, auth }));
  app.route('/', pointMapRoutes({ pool, auth, dnp3Port }));
  app.route('/', iec104PointMapRoutes({ pool, auth }));
  app.route('/', interoperabilityRoutes({ pool, auth, ...(iec104Port !== undefined ? { iec104Port } : {}) }));
  app.route('/', iec104DiagnosticsRoutes({ pool, auth }));
  app.route('/', integrationKeyRoutes({ keys: pgIntegrationKeyStore(pool), pool, auth }));
  app.route('/', alarmRoutes({ pool, auth, keyring: alarms.keyring, webhookAllow: alarms.webhookAllow, now, chatterShelveMaxMinutes: alarms.chatterShelveMaxMinutes }));
  app.route('/', incidentRoutes({ pool, auth }));
  app.route('/', indicatorAuditRoutes({ pool, auth, now }));

  app.route('/', incidentCauseRoutes({ pool, auth, now }));
  app.route('/', reliabilityExportRoutes({ pool, auth }));
  app.route('/', reliabilityRoutes({ pool, auth, now }));
  app.route('/', boardRoutes({ pool, auth, now, chatterShelveMaxMinutes: alarms.chatterShelveMaxMinutes }));
  app.route('/', deenergisedSectionRoutes({ pool, auth }));
  app.route('/', soapRoutes({ pool, accounts, clientAddress, check, now }));
  app.route('/', testFaultRoutes({ pool, auth, ...testFaults }));
  app.route('/', portalSettingsRoutes({ auth, mapTiles }));
  const readDeps: ReadDeps = { pool, codeStrings, offlineAfterHours, ...(checkinFloorS !== undefined ? { checkinFloorS } : {}), now, shortCache: shortCache({ now, ttlMs: readCacheMs }), totals: totalsCache({ now, ttlMs: readCacheMs }), walks: shortCache({ now, ttlMs: readCacheMs }), reachSizes: shortCache({ now, ttlMs: 60_000 }), unchanged: new UnchangedAnswers(pool, now) };
  const records = deviceRecordRoutes({ deps: readDeps, auth });
  for (const prefix of READ_PREFIXES) app.route(prefix, records);
  app.route('/', deviceRecordRoutes({ deps: readDeps, auth, endpoints: FLEET_ENDPOINTS }));
  if (withOps) app.route('/', opsRoutes(document));
  // Last: the portal answers only what no API route took (portal-static.ts).
  if (portalDir !== null) app.route('/', portalRoutes(portalDir === undefined ? {} : { dir: portalDir }));
  app.notFound(notFound);
  app.onError(renderError);
  return app;
}
