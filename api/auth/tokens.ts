// Access tokens (docs/decisions.md#identity-and-access): a jose JWT, HS256, 24 h, claims sub, org, role, tz,
// with iss and aud set and checked. Verification pins the algorithm, so `alg: none` and RS/HS confusion
// tokens are refused by jose before any claim is read.
import { errors, jwtVerify, SignJWT } from 'jose';
import { isTimeZone } from '../../domain/display-time.js';
import type { Role } from './caller.js';

export const TOKEN_ISSUER = 'faultline';
export const TOKEN_AUDIENCE = 'faultline-api';
/** Spec 5.1 and 8: valid 24 hours. */
export const TOKEN_LIFETIME_S = 24 * 60 * 60;

export interface TokenClaims {
  userId: number;
  org: string;
  role: Role;
  timeZone: string;
}

/** Why a token was refused; each is a 401, the reason goes to the log and the error details. */
export type TokenProblem = 'expired' | 'invalid';

export type VerifiedToken = { ok: true; claims: TokenClaims } | { ok: false; problem: TokenProblem };

export interface TokenService {
  sign(claims: TokenClaims): Promise<string>;
  verify(token: string): Promise<VerifiedToken>;
}

export interface TokenOptions {
  /** At least 32 bytes (HS256 wants a key as long as the hash). */
  secret: Uint8Array;
  lifetimeS?: number;
  /** Clock for tests: seconds since the epoch. */
  nowS?: () => number;
}

function claimsOf(payload: Record<string, unknown>): TokenClaims | null {
  const { sub, org, role, tz } = payload;
  if (typeof sub !== 'string' || !/^[1-9]\d{0,15}$/.test(sub)) return null;
  if (typeof org !== 'string' || org === '') return null;
  if (role !== 'admin' && role !== 'user') return null;
  if (typeof tz !== 'string' || !isTimeZone(tz)) return null;
  return { userId: Number(sub), org, role, timeZone: tz };
}

/**
 * @example
 *   const tokens = createTokenService({ secret });
 *   const jwt = await tokens.sign({ userId: 1, org: 'north', role: 'admin', timeZone: 'America/Chicago' });
 *   (await tokens.verify(jwt)).ok; // true
 */
export function createTokenService({ secret, lifetimeS = TOKEN_LIFETIME_S, nowS = () => Math.floor(Date.now() / 1000) }: TokenOptions): TokenService {
  if (secret.length < 32) throw new Error('the JWT secret must be at least 32 bytes');
  return {
    async sign({ userId, org, role, timeZone }) {
      const now = nowS();
      return new SignJWT({ org, role, tz: timeZone })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(String(userId))
        .setIssuer(TOKEN_ISSUER)
        .setAudience(TOKEN_AUDIENCE)
        .setIssuedAt(now)
        .setExpirationTime(now + lifetimeS)
        .sign(secret);
    },
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, secret, {
          algorithms: ['HS256'], issuer: TOKEN_ISSUER, audience: TOKEN_AUDIENCE,
          requiredClaims: ['sub', 'exp', 'iat'], currentDate: new Date(nowS() * 1000),
        });
        const claims = claimsOf(payload);
        return claims ? { ok: true, claims } : { ok: false, problem: 'invalid' };
      } catch (err) {
        return { ok: false, problem: err instanceof errors.JWTExpired ? 'expired' : 'invalid' };
      }
    },
  };
}
