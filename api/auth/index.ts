export { cachedCallers, pgAccountStore, type AccountStore, type CallerAccount, type LoginAccount } from './accounts.js';
export type { AuthEnv, Caller, Role } from './caller.js';
export { resolveJwtSecret } from './jwt-secret.js';
export { loginRoutes, parseLoginBody, LOGIN_BODY_LIMIT, type LoginRouteOptions } from './login-route.js';
export { LoginLimiter, SlidingWindow, DEFAULT_LOGIN_LIMITS, type LoginLimitOptions } from './rate-limit.js';
export { requireAdmin, requireAuth } from './require-auth.js';
export { createTokenService, TOKEN_AUDIENCE, TOKEN_ISSUER, TOKEN_LIFETIME_S, type TokenClaims, type TokenService } from './tokens.js';
