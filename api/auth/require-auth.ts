// Bearer-token middleware (spec 5.2): every route behind it has a verified `caller`. Missing, malformed,
// expired, forged, `alg: none`, wrong-key and wrong-audience tokens are all 401; the details say which
// (expired or invalid) but never echo the token.
import { createMiddleware } from 'hono/factory';
import { ApiError } from '../errors.js';
import type { AccountStore } from './accounts.js';
import type { AuthEnv } from './caller.js';
import type { TokenService } from './tokens.js';

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="faultline"' };

function unauthenticated(message: string, reason: string): ApiError {
  return new ApiError('UNAUTHENTICATED', message, { reason }, CHALLENGE);
}

const BEARER = /^Bearer +([A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]*\.[A-Za-z0-9\-_]*)\s*$/i;

export function requireAuth({ tokens, accounts }: { tokens: TokenService; accounts: AccountStore }) {
  return createMiddleware<AuthEnv>(async (c, next) => {
    const header = c.req.header('authorization');
    if (!header) throw unauthenticated('Authorization: Bearer <token> is required.', 'missing');
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

/** After requireAuth: only organisation admins (the integration endpoints of spec 4.1). */
export const requireAdmin = createMiddleware<AuthEnv>(async (c, next) => {
  if (c.get('caller').role !== 'admin') throw new ApiError('FORBIDDEN', 'This endpoint needs an organisation admin.');
  await next();
});
