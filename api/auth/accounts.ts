// The users table as the auth code needs it. Emails compare case-insensitively (users_email index on
// lower(email)); soft-deleted users do not exist for login or for a token that was issued before.
import type pg from 'pg';
import { effectiveTimeZone } from '../../domain/display-time.js';
import type { Role } from './caller.js';

export interface LoginAccount {
  userId: number;
  passwordHash: string;
  org: string;
  role: Role;
  /** The user's zone, else the organisation's, else UTC (docs/decisions.md#identity-and-access). */
  timeZone: string;
  /** The organisation's MaskFaultDetails, so the portal offers only the filters a masked caller may send. */
  maskFaultDetails: boolean;
}

export interface CallerAccount {
  org: string;
  role: Role;
  maskFaultDetails: boolean;
}

export interface AccountStore {
  findForLogin(email: string): Promise<LoginAccount | null>;
  /** The live state of a token's user; null when the user is gone. */
  findCaller(userId: number): Promise<CallerAccount | null>;
  updatePasswordHash(userId: number, hash: string): Promise<void>;
}

const FIND_FOR_LOGIN = `
  select u.id, u.password_hash, u."OrganizationID" as org, u.role, u.timezone as user_tz, o.timezone as org_tz,
         o."MaskFaultDetails" as mask
    from users u join organizations o on o."OrganizationID" = u."OrganizationID"
   where lower(u.email) = lower($1) and u.deleted_at is null`;

const FIND_CALLER = `
  select u."OrganizationID" as org, u.role, o."MaskFaultDetails" as mask
    from users u join organizations o on o."OrganizationID" = u."OrganizationID"
   where u.id = $1 and u.deleted_at is null`;

export function pgAccountStore(pool: pg.Pool): AccountStore {
  return {
    async findForLogin(email) {
      const { rows } = await pool.query<{ id: number; password_hash: string; org: string; role: Role; user_tz: string | null; org_tz: string | null; mask: boolean }>(FIND_FOR_LOGIN, [email]);
      const row = rows[0];
      if (!row) return null;
      return { userId: row.id, passwordHash: row.password_hash, org: row.org, role: row.role, timeZone: effectiveTimeZone(row.user_tz, row.org_tz), maskFaultDetails: row.mask };
    },
    async findCaller(userId) {
      const { rows } = await pool.query<{ org: string; role: Role; mask: boolean }>(FIND_CALLER, [userId]);
      const row = rows[0];
      return row ? { org: row.org, role: row.role, maskFaultDetails: row.mask } : null;
    },
    async updatePasswordHash(userId, hash) {
      await pool.query('update users set password_hash = $2, updated_at = now() where id = $1', [userId, hash]);
    },
  };
}

/**
 * findCaller answers from memory for `ttlMs` after a lookup: every request of a token needs the account,
 * and one query per request was a measurable share of a read (bench/api.bench.ts). A deleted user, a
 * moved user or a revoked admin is refused at the latest `ttlMs` later; group membership is not cached
 * (reach is read per request).
 */
export function cachedCallers(store: AccountStore, { ttlMs, now, maxEntries = 10_000 }: { ttlMs: number; now: () => number; maxEntries?: number }): AccountStore {
  if (ttlMs <= 0) return store;
  const cache = new Map<number, { at: number; account: CallerAccount | null }>();
  return {
    ...store,
    async findCaller(userId) {
      const hit = cache.get(userId);
      if (hit && now() - hit.at < ttlMs) return hit.account;
      const account = await store.findCaller(userId);
      if (cache.size >= maxEntries) cache.clear();
      cache.set(userId, { at: now(), account });
      return account;
    },
  };
}
