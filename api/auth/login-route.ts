// POST /api/auth/login (spec 4.1, 5.1): JSON {email, password} -> {accessToken, maskFaultDetails}. A wrong email and a wrong
// password give the same 401 after the same scrypt work (verifyAgainstDummy), and both count against the
// rate limit of the email and of the client address, shared with SOAP (login-check.ts).
import { Hono } from 'hono';
import type { Context } from 'hono';
import { log } from '../../config/log.js';
import { ApiError } from '../errors.js';
import { isStorableText, jsonBody, requireJsonType } from '../request.js';
import { writeRoute } from '../write-endpoint.js';
import { LOGIN, LOGIN_BODY_LIMIT } from './login-endpoint.js';
import { hashPassword, needsRehash } from '../../secrets/password.js';
import type { AccountStore } from './accounts.js';
import type { LoginCheck } from './login-check.js';
import type { TokenService } from './tokens.js';

/** Emails and passwords are short; anything larger than this is not a login. */
export { LOGIN_BODY_LIMIT };
const MAX_FIELD = 1024;

export interface LoginBody {
  email: string;
  password: string;
}

/** Validates the parsed body: both fields present, strings, non-empty, of sane length. */
export function parseLoginBody(body: unknown): LoginBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError('INVALID_BODY', 'The body must be a JSON object with "email" and "password".', { field: 'body' });
  }
  const o = body as Record<string, unknown>;
  for (const field of ['email', 'password'] as const) {
    const value = o[field];
    if (value === undefined) throw new ApiError('INVALID_BODY', `The field "${field}" is missing.`, { field });
    if (typeof value !== 'string' || value === '' || value.length > MAX_FIELD || !isStorableText(value)) {
      throw new ApiError('INVALID_BODY', `The field "${field}" must be a non-empty string of at most ${MAX_FIELD} characters.`, { field });
    }
  }
  return { email: (o.email as string).trim(), password: o.password as string };
}

export interface LoginRouteOptions {
  tokens: TokenService;
  accounts: AccountStore;
  /** The shared login check (limit, hash gate, password). */
  check: LoginCheck;
  /** The client address for the per-address limit. */
  clientAddress: (c: Context) => string;
}

export function loginRoutes({ tokens, accounts, check, clientAddress }: LoginRouteOptions): Hono {
  const app = new Hono();
  writeRoute(
    app, LOGIN, [requireJsonType({ noun: 'The login body' })],
    async (c) => {
      const { email, password } = parseLoginBody(await jsonBody(c, { noun: 'The login body' }));
      const address = clientAddress(c);
      const outcome = await check(email, password, address);
      if (!outcome.ok && outcome.reason === 'rate-limited') {
        const wait = outcome.retryAfterS;
        throw new ApiError('RATE_LIMITED', `Too many failed logins; try again in ${wait} s.`, { retryAfterSeconds: wait }, { 'Retry-After': String(wait) });
      }
      if (!outcome.ok && outcome.reason === 'busy') {
        const wait = outcome.retryAfterS;
        throw new ApiError('UNAVAILABLE', `Too many logins at once; try again in ${wait} s.`, { retryAfterSeconds: wait }, { 'Retry-After': String(wait) });
      }
      if (!outcome.ok) {
        log.info({ address }, 'login refused');
        throw new ApiError('INVALID_CREDENTIALS', 'The email or the password is wrong.');
      }
      const { account } = outcome;
      if (needsRehash(account.passwordHash)) {
        // Cost raised since this hash was made: store one at today's cost while the password is at hand.
        await accounts.updatePasswordHash(account.userId, await hashPassword(password));
      }
      const accessToken = await tokens.sign({ userId: account.userId, org: account.org, role: account.role, timeZone: account.timeZone });
      return c.json({ accessToken, maskFaultDetails: account.maskFaultDetails });
    },
  );
  return app;
}
