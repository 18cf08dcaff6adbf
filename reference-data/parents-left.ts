// A power line or group given to another organisation must not keep the first one's devices (the reference
// check of references.ts sees only the file's devices): a device of north on a line of south leaks it into the
// other utility's views, and a line carrying two organisations' devices once stopped silent-device triage for
// every organisation (docs/decisions.md#review-of-fleet-health-as-a-hostile-party). Devices the same file moves
// along (or deletes) are not left behind.
import type pg from 'pg';
import type { Problem } from './errors.js';
import { show } from './field-reader.js';
import type { ImportData } from './model.js';
import type { PathOf } from './references.js';

interface LeftRow { id: string; org: string; n: number; imei: string }

/** One problem per power line or group of the file that other organisations' devices would stay on. */
export async function checkParentsLeft(client: pg.ClientBase, data: ImportData, pathOf: PathOf): Promise<Problem[]> {
  const moving = data.devices.map((d) => d.IMEINumber);
  const left = async (sql: string, rows: readonly { id: string; org: string }[]) => (rows.length === 0 ? [] : (await client.query<LeftRow>(sql,
    [rows.map((r) => r.id), rows.map((r) => r.org), moving])).rows);
  const lines = await left(`
    select f.id, d."OrganizationID" as org, count(*)::int as n, min(d."IMEINumber") as imei
      from unnest($1::text[], $2::text[]) f(id, org)
      join device_information d on d."PowerLineID" = f.id and d."OrganizationID" <> f.org and d.deleted_at is null
     where d."IMEINumber" <> all($3::text[]) group by 1, 2 order by 1, 2`, data.powerLines.map((r) => ({ id: r.Id, org: r.OrganizationID })));
  const groups = await left(`
    select f.id, d."OrganizationID" as org, count(*)::int as n, min(d."IMEINumber") as imei
      from unnest($1::text[], $2::text[]) f(id, org)
      join group_device_links l on l."GroupID" = f.id
      join device_information d on d."DeviceID" = l."DeviceID" and d."OrganizationID" <> f.org and d.deleted_at is null
     where d."IMEINumber" <> all($3::text[]) group by 1, 2 order by 1, 2`, data.groups.map((r) => ({ id: r.GroupID, org: r.OrganizationID })));
  const problem = (what: string, path: string, r: LeftRow): Problem => ({
    path: `${path}.OrganizationID`,
    message: `${what} ${show(r.id)} still has ${r.n} device(s) of organization ${show(r.org)} (${show(r.imei)} first); move or delete them in the same file, or keep its organization`,
  });
  const indexOf = <T>(rows: readonly T[], key: (r: T) => string) => new Map(rows.map((r, i) => [key(r), [r, i] as const]));
  const lineRows = indexOf(data.powerLines, (r) => r.Id);
  const groupRows = indexOf(data.groups, (r) => r.GroupID);
  return [
    ...lines.map((r) => { const [row, i] = lineRows.get(r.id)!; return problem('power line', pathOf('powerLines', row, i), r); }),
    ...groups.map((r) => { const [row, i] = groupRows.get(r.id)!; return problem('group', pathOf('groups', row, i), r); }),
  ];
}
