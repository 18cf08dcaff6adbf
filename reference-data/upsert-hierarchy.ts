// Organizations, power lines and groups: one multi-row upsert each. A row is written only when a value
// differs (`is distinct from`), so re-importing the same file leaves every row, and `updated_at`, untouched.
import type pg from 'pg';
import { DRIFT_SETTINGS } from '../fleet/settings-drift.js';
import type { GroupInput, KindCounts, OrganizationInput, PowerLineInput } from './model.js';

// The group profile's columns (migration 0036), one per compared setting (fleet/settings-drift.ts); the SQL text
// is fixed at load, never made from input.
const PROFILE_COLUMNS = DRIFT_SETTINGS.map((d) => `"${d.profile}"`).join(', ');

/**
 * Runs an `insert ... on conflict do update ... where <differs> returning (xmax = 0) as inserted` and
 * turns it into counts: unchanged rows return nothing, a fresh row has no xmax, an updated one has.
 */
export async function countedUpsert(client: pg.ClientBase, sql: string, params: unknown[], total: number): Promise<KindCounts> {
  const { rows } = await client.query<{ inserted: number; updated: number }>(
    `with up as (${sql}) select count(*) filter (where inserted)::int as inserted, count(*) filter (where not inserted)::int as updated from up`,
    params,
  );
  const { inserted, updated } = rows[0]!;
  return { inserted, updated, unchanged: total - inserted - updated };
}

export function upsertOrganizations(client: pg.ClientBase, rows: readonly OrganizationInput[]): Promise<KindCounts> {
  return countedUpsert(client, `
    insert into organizations ("OrganizationID", name, "MaskFaultDetails", timezone, "RecurringSectionIncidents", "RecurringSectionDays")
    select * from unnest($1::text[], $2::text[], $3::boolean[], $4::text[], $5::integer[], $6::integer[])
    on conflict ("OrganizationID") do update
      set name = excluded.name, "MaskFaultDetails" = excluded."MaskFaultDetails", timezone = excluded.timezone,
          "RecurringSectionIncidents" = excluded."RecurringSectionIncidents", "RecurringSectionDays" = excluded."RecurringSectionDays", updated_at = now()
      where (organizations.name, organizations."MaskFaultDetails", organizations.timezone, organizations."RecurringSectionIncidents", organizations."RecurringSectionDays")
            is distinct from (excluded.name, excluded."MaskFaultDetails", excluded.timezone, excluded."RecurringSectionIncidents", excluded."RecurringSectionDays")
    returning (xmax = 0) as inserted`,
  [rows.map((r) => r.OrganizationID), rows.map((r) => r.name), rows.map((r) => r.MaskFaultDetails), rows.map((r) => r.timezone),
    rows.map((r) => r.RecurringSectionIncidents), rows.map((r) => r.RecurringSectionDays)],
  rows.length);
}

export function upsertPowerLines(client: pg.ClientBase, rows: readonly PowerLineInput[]): Promise<KindCounts> {
  return countedUpsert(client, `
    insert into power_lines ("Id", "OrganizationID", name)
    select * from unnest($1::text[], $2::text[], $3::text[])
    on conflict ("Id") do update set "OrganizationID" = excluded."OrganizationID", name = excluded.name
      where (power_lines."OrganizationID", power_lines.name) is distinct from (excluded."OrganizationID", excluded.name)
    returning (xmax = 0) as inserted`,
  [rows.map((r) => r.Id), rows.map((r) => r.OrganizationID), rows.map((r) => r.name)],
  rows.length);
}

export function upsertGroups(client: pg.ClientBase, rows: readonly GroupInput[]): Promise<KindCounts> {
  return countedUpsert(client, `
    insert into groups ("GroupID", "OrganizationID", name, ${PROFILE_COLUMNS})
    select * from unnest($1::text[], $2::text[], $3::text[], ${DRIFT_SETTINGS.map((d, i) => `$${i + 4}::${d.type === 'number' ? 'float8' : 'text'}[]`).join(', ')})
    on conflict ("GroupID") do update set "OrganizationID" = excluded."OrganizationID", name = excluded.name,
      ${DRIFT_SETTINGS.map((d) => `"${d.profile}" = excluded."${d.profile}"`).join(', ')}
      where (groups."OrganizationID", groups.name, ${DRIFT_SETTINGS.map((d) => `groups."${d.profile}"`).join(', ')})
            is distinct from (excluded."OrganizationID", excluded.name, ${DRIFT_SETTINGS.map((d) => `excluded."${d.profile}"`).join(', ')})
    returning (xmax = 0) as inserted`,
  [rows.map((r) => r.GroupID), rows.map((r) => r.OrganizationID), rows.map((r) => r.name), ...DRIFT_SETTINGS.map((d) => rows.map((r) => r.profile[d.profile]))],
  rows.length);
}
