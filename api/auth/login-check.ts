// The one login check of every password login, REST (login-route.ts) and SOAP (api/soap/routes.ts): the
// shared failed-login limit (per email and per address), then the password check inside the hash gate, with
// the same scrypt work for an unknown email as for a wrong password (docs/decisions.md#hostile-callers).
import type { AccountStore, LoginAccount } from './accounts.js';
import { HashGate, HashGateBusy } from './hash-gate.js';
import { verifyAgainstDummy, verifyPassword } from '../../secrets/password.js';
import { LoginLimiter } from './rate-limit.js';

export type LoginOutcome =
  | { ok: true; account: LoginAccount }
  | { ok: false; reason: 'wrong' }
  /** Too many failed logins for this email or address, or too many checks at once: wait this long. */
  | { ok: false; reason: 'rate-limited' | 'busy'; retryAfterS: number };

export interface LoginCheckOptions {
  accounts: AccountStore;
  limiter?: LoginLimiter;
  gate?: HashGate;
  now?: () => number;
}

export type LoginCheck = (email: string, password: string, address: string) => Promise<LoginOutcome>;

/**
 * @example
 *   const check = loginCheck({ accounts }); // one per app, handed to REST and SOAP
 *   const r = await check('a@b.c', 'pw', '203.0.113.9');
 */
export function loginCheck({ accounts, limiter = new LoginLimiter(), gate = new HashGate(), now = Date.now }: LoginCheckOptions): LoginCheck {
  return async (email, password, address) => {
    const at = now();
    const wait = limiter.retryAfterS(email, address, at);
    if (wait > 0) return { ok: false, reason: 'rate-limited', retryAfterS: wait };
    // Counted as failed before the check and taken back if right: concurrent guesses see each other.
    limiter.failed(email, address, at);
    let ok: boolean;
    let account: LoginAccount | null = null;
    try {
      account = await accounts.findForLogin(email);
      ok = await gate.run(() => (account ? verifyPassword(password, account.passwordHash) : verifyAgainstDummy(password)));
    } catch (err) {
      limiter.succeeded(email, address, at); // not checked: not counted
      if (err instanceof HashGateBusy) return { ok: false, reason: 'busy', retryAfterS: err.retryAfterS };
      throw err;
    }
    if (!account || !ok) return { ok: false, reason: 'wrong' };
    limiter.succeeded(email, address, at);
    return { ok: true, account };
  };
}
