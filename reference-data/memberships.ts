// Group memberships of devices (group_device_links) and users (user_groups): after the import an owner's
// set of groups is exactly the listed one. Links that already exist are not touched, so an unchanged
// set writes nothing.
import type pg from 'pg';

// Two literal statements rather than one with spliced table names: SQL text never varies.
const SYNC_SQL = {
  device: `
    with wanted as (select * from unnest($2::bigint[], $3::text[]) as w(owner, g)),
    removed as (
      delete from group_device_links l
       where l."DeviceID" = any($1::bigint[])
         and not exists (select 1 from wanted w where w.owner = l."DeviceID" and w.g = l."GroupID")
      returning l."DeviceID" as owner
    ),
    added as (
      insert into group_device_links ("DeviceID", "GroupID") select owner, g from wanted
      on conflict do nothing returning "DeviceID" as owner
    )
    select owner from removed union select owner from added`,
  user: `
    with wanted as (select * from unnest($2::bigint[], $3::text[]) as w(owner, g)),
    removed as (
      delete from user_groups l
       where l.user_id = any($1::bigint[])
         and not exists (select 1 from wanted w where w.owner = l.user_id and w.g = l."GroupID")
      returning l.user_id as owner
    ),
    added as (
      insert into user_groups (user_id, "GroupID") select owner, g from wanted
      on conflict do nothing returning user_id as owner
    )
    select owner from removed union select owner from added`,
} as const;

/**
 * Makes each owner's groups exactly `groupsOf(owner)`; returns the owners whose set changed.
 *
 * @example
 *   const changed = await syncMemberships(client, 'device', [[17, ['crew-east']], [18, []]]);
 */
export async function syncMemberships(client: pg.ClientBase, kind: keyof typeof SYNC_SQL, owners: readonly (readonly [number, readonly string[]])[]): Promise<Set<number>> {
  if (owners.length === 0) return new Set();
  const pairOwner: number[] = [];
  const pairGroup: string[] = [];
  for (const [owner, groups] of owners) for (const g of groups) { pairOwner.push(owner); pairGroup.push(g); }
  const { rows } = await client.query<{ owner: number }>(SYNC_SQL[kind], [owners.map(([o]) => o), pairOwner, pairGroup]);
  return new Set(rows.map((r) => Number(r.owner)));
}
