// A token is verified once, not on every request (docs/decisions.md#reads-that-build-nothing-they-throw-away):
// jose's HMAC check and the claims' checks (the zone through Temporal) cost ~0.3 ms of a core per request
// (bench/results/read-cost.md), for an answer that cannot change while the same token and key are in use.
// Only a token that verified is kept, with its `exp`: a hit is refused from its expiry second on, as jose
// refuses it. What can revoke a token (a deleted or moved user, a changed role) is the account check that
// require-auth.ts makes after this on every request, never cached here; integration keys never pass here
// (key-check.ts reads the key's row per request). A new JWT_SECRET means a new process, with an empty cache.
import type { TokenService, VerifiedToken } from './tokens.js';

/** At most this many tokens are kept (a few MB); the oldest verified goes first. */
export const TOKEN_CACHE_ENTRIES = 10_000;
/** A kept token is verified again after this long, whatever its expiry. */
export const TOKEN_CACHE_TTL_S = 300;

interface Kept { verified: VerifiedToken & { ok: true }; exp: number; until: number }

/** Seconds since the epoch of the token's `exp`, read from its payload (already verified), or null. */
function expiryOf(token: string): number | null {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: unknown; nbf?: unknown };
    // A token with a not-before is not kept: its acceptance depends on the time in a second way.
    return typeof payload.exp === 'number' && payload.nbf === undefined ? payload.exp : null;
  } catch {
    return null;
  }
}

/**
 * `tokens` with verify answered from memory for a token it accepted before, until that token's `exp` (exclusive)
 * or `ttlS` after it was verified, whichever comes first.
 * @example const tokens = cachedTokens(createTokenService({ secret }), { nowS });
 */
export function cachedTokens(tokens: TokenService, { nowS, maxEntries = TOKEN_CACHE_ENTRIES, ttlS = TOKEN_CACHE_TTL_S }: { nowS: () => number; maxEntries?: number; ttlS?: number }): TokenService {
  const kept = new Map<string, Kept>();
  return {
    sign: (claims) => tokens.sign(claims),
    async verify(token) {
      const now = nowS();
      const hit = kept.get(token);
      if (hit && now < hit.exp && now < hit.until) return hit.verified;
      if (hit) kept.delete(token);
      const verified = await tokens.verify(token);
      const exp = verified.ok ? expiryOf(token) : null;
      if (verified.ok && exp !== null && now < exp) {
        if (kept.size >= maxEntries) kept.delete(kept.keys().next().value!);
        kept.set(token, { verified, exp, until: now + ttlS });
      }
      return verified;
    },
  };
}
