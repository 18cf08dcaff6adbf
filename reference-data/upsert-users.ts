// Users and their groups. A password is re-hashed only when it no longer verifies against the stored hash:
// a fresh salt on every import would rewrite every row and make re-imports look like changes.
import type pg from 'pg';
import { hashPassword, verifyPassword } from '../secrets/password.js';
import { syncMemberships } from './memberships.js';
import type { KindCounts, UserInput } from './model.js';

/** scrypt runs on libuv's thread pool (4 threads by default); more at once only queues. */
const HASH_CONCURRENCY = 4;

const UPSERT = `
  insert into users (email, password_hash, "OrganizationID", role, timezone, deleted_at)
  select email, hash, org, role, tz, case when deleted then now() end
    from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::boolean[]) as t(email, hash, org, role, tz, deleted)
  on conflict ((lower(email))) do update set
    email = excluded.email, password_hash = excluded.password_hash, "OrganizationID" = excluded."OrganizationID",
    role = excluded.role, timezone = excluded.timezone,
    deleted_at = case when excluded.deleted_at is null then null else coalesce(users.deleted_at, excluded.deleted_at) end,
    updated_at = now()
  where (users.email, users.password_hash, users."OrganizationID", users.role, users.timezone, users.deleted_at is null)
        is distinct from
        (excluded.email, excluded.password_hash, excluded."OrganizationID", excluded.role, excluded.timezone, excluded.deleted_at is null)
  returning lower(email) as key, (xmax = 0) as inserted`;

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** The hash to store: the current one when the password still matches it (or none is given), else new. */
async function hashToStore(user: UserInput, stored: string | undefined): Promise<string> {
  if (user.password === null) {
    // Validation refuses a new user without a password, so a stored hash exists here.
    if (stored === undefined) throw new Error(`user ${user.email}: no password and no stored hash`);
    return stored;
  }
  if (stored !== undefined && await verifyPassword(user.password, stored)) return stored;
  return hashPassword(user.password);
}

export async function upsertUserChunk(client: pg.ClientBase, rows: readonly UserInput[]): Promise<KindCounts> {
  if (rows.length === 0) return { inserted: 0, updated: 0, unchanged: 0 };
  const keys = rows.map((r) => r.email.toLowerCase());
  const storedRows = await client.query<{ key: string; password_hash: string }>(
    'select lower(email) as key, password_hash from users where lower(email) = any($1::text[]) for update', [keys],
  );
  const stored = new Map(storedRows.rows.map((r) => [r.key, r.password_hash]));
  const hashes = await mapLimit(rows, HASH_CONCURRENCY, (u) => hashToStore(u, stored.get(u.email.toLowerCase())));

  const written = await client.query<{ key: string; inserted: boolean }>(UPSERT, [
    rows.map((r) => r.email), hashes, rows.map((r) => r.OrganizationID), rows.map((r) => r.role),
    rows.map((r) => r.timezone), rows.map((r) => r.deleted),
  ]);
  const touched = new Map(written.rows.map((r) => [r.key, r.inserted]));

  const ids = await client.query<{ key: string; id: number }>('select lower(email) as key, id from users where lower(email) = any($1::text[])', [keys]);
  const idOf = new Map(ids.rows.map((r) => [r.key, Number(r.id)]));
  const changedGroups = await syncMemberships(client, 'user', rows.map((r) => [idOf.get(r.email.toLowerCase())!, r.groups] as const));

  const groupOnly = keys.filter((k) => !touched.has(k) && changedGroups.has(idOf.get(k)!));
  if (groupOnly.length > 0) {
    await client.query('update users set updated_at = now() where lower(email) = any($1::text[])', [groupOnly]);
  }
  const inserted = [...touched.values()].filter(Boolean).length;
  const updated = touched.size - inserted + groupOnly.length;
  return { inserted, updated, unchanged: rows.length - inserted - updated };
}
