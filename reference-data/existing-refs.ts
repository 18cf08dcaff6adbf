// The database side of the reference checks: rows the file refers to without declaring them, and which
// of the file's users already exist (they may leave out the password).
import type pg from 'pg';
import type { ExistingRefs, ReferencedKeys } from './references.js';

export async function loadExistingRefs(client: pg.ClientBase, keys: ReferencedKeys): Promise<ExistingRefs> {
  const [orgs, lines, groups, users] = [
    await client.query<{ id: string }>('select "OrganizationID" as id from organizations where "OrganizationID" = any($1::text[])', [keys.organizations]),
    await client.query<{ id: string; org: string }>('select "Id" as id, "OrganizationID" as org from power_lines where "Id" = any($1::text[])', [keys.powerLines]),
    await client.query<{ id: string; org: string }>('select "GroupID" as id, "OrganizationID" as org from groups where "GroupID" = any($1::text[])', [keys.groups]),
    await client.query<{ key: string }>('select lower(email) as key from users where lower(email) = any($1::text[])', [keys.emails]),
  ];
  return {
    organizations: new Set(orgs.rows.map((r) => r.id)),
    powerLines: new Map(lines.rows.map((r) => [r.id, r.org])),
    groups: new Map(groups.rows.map((r) => [r.id, r.org])),
    userEmails: new Set(users.rows.map((r) => r.key)),
  };
}
