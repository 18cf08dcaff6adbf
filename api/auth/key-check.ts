// The one check of a request made with an integration key (docs/decisions.md#integration-keys-and-the-mask):
// the address's failed-credential window (the one logins fill, rate-limit.ts), the key's row by its id, its
// secret against the stored SHA-256 in constant time, then revocation. Unknown id and wrong secret are one
// answer, so the answer does not confirm which ids exist; "revoked" is said only to a caller who holds the key.
import { integrationSecretMatches, parseIntegrationKey } from '../../secrets/integration-key.js';
import type { Caller } from './caller.js';
import type { IntegrationKeyStore } from './integration-keys.js';
import type { LoginLimiter } from './rate-limit.js';

const NO_KEY = Buffer.alloc(32);

export type KeyRefusal = 'malformed' | 'unknown-key' | 'revoked-key';

export type KeyOutcome =
  | { ok: true; caller: Caller }
  | { ok: false; reason: KeyRefusal; keyId: string | null }
  | { ok: false; reason: 'rate-limited'; retryAfterS: number };

export type KeyCheck = (key: string, address: string) => Promise<KeyOutcome>;

/**
 * @example
 *   const check = keyCheck({ keys: pgIntegrationKeyStore(pool), limiter });
 *   const r = await check('flk_0123456789abcdef_…', '203.0.113.9');
 */
export function keyCheck({ keys, limiter, now = Date.now }: { keys: IntegrationKeyStore; limiter: LoginLimiter; now?: () => number }): KeyCheck {
  return async (key, address) => {
    const at = now();
    const wait = limiter.addressRetryAfterS(address, at);
    if (wait > 0) return { ok: false, reason: 'rate-limited', retryAfterS: wait };
    const refuse = (reason: KeyRefusal, keyId: string | null): KeyOutcome => {
      limiter.addressFailed(address, at);
      return { ok: false, reason, keyId };
    };
    const parts = parseIntegrationKey(key);
    if (!parts) return refuse('malformed', null);
    const row = await keys.findForAuth(parts.id);
    // The same hash and comparison for an unknown id as for a known one.
    const matches = integrationSecretMatches(parts.secret, row?.secretSha256 ?? NO_KEY);
    if (!row || !matches) return refuse('unknown-key', parts.id);
    if (row.revoked) return refuse('revoked-key', parts.id);
    await keys.recordUse(parts.id);
    return { ok: true, caller: { userId: null, keyId: parts.id, org: row.org, role: 'integration', timeZone: row.timeZone, maskFaultDetails: row.maskFaultDetails } };
  };
}
