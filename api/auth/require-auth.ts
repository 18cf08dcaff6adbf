// Bearer-token middleware (spec 5.2): every route behind it has a verified `caller`. Missing, malformed,
// expired, forged, `alg: none`, wrong-key and wrong-audience tokens are all 401; the details say which
// (expired or invalid) but never echo the token. The bearer is a person's token (a JWT from login) or an
// integration key (`flk_...`, key-check.ts), which is accepted only on the routes that say they are for it
// (`integrationOutput`; docs/decisions.md#integration-keys-and-the-mask).
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { log } from '../../config/log.js';
import { INTEGRATION_KEY_PREFIX } from '../../secrets/integration-key.js';
import { ApiError } from '../errors.js';
import type { AccountStore } from './accounts.js';
import type { AuthEnv } from './caller.js';
import type { KeyCheck, KeyRefusal } from './key-check.js';
import type { TokenService } from './tokens.js';

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="faultline"' };

function unauthenticated(message: string, reason: string): ApiError {
  return new ApiError('UNAUTHENTICATED', message, { reason }, CHALLENGE);
}

const BEARER = /^Bearer +([A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]*\.[A-Za-z0-9\-_]*)\s*$/i;
const BEARER_KEY = new RegExp(`^Bearer +(${INTEGRATION_KEY_PREFIX}\\S*)\\s*$`, 'i');

/** Integration keys: their check and the client address it counts failures under. */
export interface KeyAuth {
  check: KeyCheck;
  clientAddress: (c: Context) => string;
}

const KEY_REFUSED: Record<KeyRefusal, string> = {
  malformed: 'The integration key is not in the form flk_<id>_<secret>.',
  'unknown-key': 'The integration key is not known (mistyped, or replaced by a rotation).',
  'revoked-key': 'The integration key was revoked; an organisation admin can create a new one.',
};

async function keyCaller(c: Context<AuthEnv>, key: string, keys: KeyAuth): Promise<void> {
  const address = keys.clientAddress(c);
  const outcome = await keys.check(key, address);
  if (!outcome.ok && outcome.reason === 'rate-limited') {
    const wait = outcome.retryAfterS;
    throw new ApiError('RATE_LIMITED', `Too many failed credentials from this address; try again in ${wait} s.`, { retryAfterSeconds: wait }, { 'Retry-After': String(wait) });
  }
  if (!outcome.ok) {
    // The key's id (not secret: it names the key in the admins' list) and never its secret.
    log.info({ address, reason: outcome.reason, keyId: outcome.keyId }, 'integration key refused');
    throw unauthenticated(KEY_REFUSED[outcome.reason], outcome.reason);
  }
  if (!c.get('integrationOutput')) {
    throw new ApiError('FORBIDDEN', 'An integration key reads only the SCADA integrations\' outputs: the DNP3 devices, point map and device profile, and the IEC 104 point map and interoperability list.');
  }
  c.set('caller', outcome.caller);
}

export function requireAuth({ tokens, accounts, keys }: { tokens: TokenService; accounts: AccountStore; keys?: KeyAuth }) {
  return createMiddleware<AuthEnv>(async (c, next) => {
    const header = c.req.header('authorization');
    if (!header) throw unauthenticated('Authorization: Bearer <token> is required.', 'missing');
    const key = keys && BEARER_KEY.exec(header);
    if (key) {
      await keyCaller(c, key[1]!, keys);
      return next();
    }
    const match = BEARER.exec(header);
    if (!match) throw unauthenticated('The Authorization header must be "Bearer <token>".', 'malformed');
    const verified = await tokens.verify(match[1]!);
    if (!verified.ok) {
      throw unauthenticated(verified.problem === 'expired' ? 'The token has expired; log in again.' : 'The token is not valid.', verified.problem);
    }
    const { claims } = verified;
    // The token is 24 h; the account is checked on every request (through a cache of a few seconds,
    // accounts.ts cachedCallers) so a deleted user, a moved user or a revoked admin role stops working
    // within seconds rather than a day later.
    const account = await accounts.findCaller(claims.userId);
    if (!account || account.org !== claims.org || account.role !== claims.role) {
      throw unauthenticated('The account of this token no longer matches; log in again.', 'stale');
    }
    c.set('caller', { userId: claims.userId, org: claims.org, role: claims.role, timeZone: claims.timeZone, maskFaultDetails: account.maskFaultDetails });
    await next();
  });
}

/** After requireAuth: only organisation admins (people; an integration key is refused too). */
export const requireAdmin = createMiddleware<AuthEnv>(async (c, next) => {
  if (c.get('caller').role !== 'admin') throw new ApiError('FORBIDDEN', 'This endpoint needs an organisation admin.');
  await next();
});

/**
 * The route option of the SCADA integrations' outputs, put before `auth`: an integration key may read the route,
 * and reads it unmasked (fault-mask-policy.ts). The route says so of itself, so the policy names no route.
 * @example app.get(POINT_MAP_PATH, integrationOutput, auth, requireIntegrationReader, handler);
 */
export const integrationOutput = createMiddleware<AuthEnv>(async (c, next) => {
  c.set('integrationOutput', true);
  await next();
});

/** The paths of an app's routes that carry `integrationOutput` (what the masking and key suites walk). */
export function integrationOutputPaths(app: { routes: readonly { path: string; handler: unknown }[] }): string[] {
  return [...new Set(app.routes.filter((r) => r.handler === integrationOutput).map((r) => r.path))];
}

/** After requireAuth: the SCADA integrations' outputs (spec 4.1), for organisation admins and integration keys. */
export const requireIntegrationReader = createMiddleware<AuthEnv>(async (c, next) => {
  const { role } = c.get('caller');
  if (role !== 'admin' && role !== 'integration') throw new ApiError('FORBIDDEN', 'This endpoint needs an organisation admin or an integration key.');
  await next();
});
