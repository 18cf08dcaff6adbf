// Reference checks of an import: every OrganizationID, PowerLineID and group must name a row of the file or
// of the database, of the same organization (a device of "north" on a power line of "south" would leak it
// into the other utility's views). Pure; `loadExistingRefs` fetches the database side.
import type { Problem } from './errors.js';
import { show } from './field-reader.js';
import type { ImportData, Kind } from './model.js';

/** Keys the file declares, read from raw rows (also invalid ones, so one bad row does not cascade). */
export interface DeclaredKeys {
  organizations: Set<string>;
  /** Id -> OrganizationID (null when the row's own OrganizationID is unusable). */
  powerLines: Map<string, string | null>;
  groups: Map<string, string | null>;
}

/** Rows already in the database that the file refers to without declaring them. */
export interface ExistingRefs {
  organizations: ReadonlySet<string>;
  powerLines: ReadonlyMap<string, string>;
  groups: ReadonlyMap<string, string>;
  /** lower(email) of users that exist (they may omit the password). */
  userEmails: ReadonlySet<string>;
}

export const NO_EXISTING_REFS: ExistingRefs = { organizations: new Set(), powerLines: new Map(), groups: new Map(), userEmails: new Set() };

export interface ReferencedKeys { organizations: string[]; powerLines: string[]; groups: string[]; emails: string[] }

/** What to look up in the database: references the file does not declare itself, and user emails. */
export function referencedKeys(data: ImportData, declared: DeclaredKeys): ReferencedKeys {
  const orgs = new Set<string>();
  const lines = new Set<string>();
  const groups = new Set<string>();
  for (const row of [...data.powerLines, ...data.groups, ...data.devices, ...data.users, ...data.integrations]) orgs.add(row.OrganizationID);
  for (const d of data.devices) {
    if (d.PowerLineID !== null) lines.add(d.PowerLineID);
    for (const g of d.groups) groups.add(g);
  }
  for (const u of data.users) for (const g of u.groups) groups.add(g);
  return {
    organizations: [...orgs].filter((o) => !declared.organizations.has(o)),
    powerLines: [...lines].filter((l) => !declared.powerLines.has(l)),
    groups: [...groups].filter((g) => !declared.groups.has(g)),
    emails: data.users.map((u) => u.email.toLowerCase()),
  };
}

/** Where a model row sits in the file; rows not made by `parseImport` fall back to their array index. */
export type PathOf = (kind: Kind, row: object, index: number) => string;
const byIndex: PathOf = (kind, _row, index) => `${kind}[${index}]`;

export function checkReferences(data: ImportData, declared: DeclaredKeys, existing: ExistingRefs, pathOf: PathOf = byIndex): Problem[] {
  const problems: Problem[] = [];
  const orgKnown = (id: string) => declared.organizations.has(id) || existing.organizations.has(id);
  const checkOrg = (path: string, id: string) => {
    if (!orgKnown(id)) problems.push({ path: `${path}.OrganizationID`, message: `${show(id)} is not an organization in this file or the database` });
  };
  // A parent of another organization; `undefined` org: the parent row itself is broken, already reported.
  const checkParent = (path: string, what: string, id: string, ownerOrg: string, declaredMap: Map<string, string | null>, existingMap: ReadonlyMap<string, string>) => {
    const parentOrg = declaredMap.has(id) ? declaredMap.get(id) : existingMap.get(id);
    if (!declaredMap.has(id) && parentOrg === undefined) problems.push({ path, message: `${show(id)} is not a ${what} in this file or the database` });
    else if (parentOrg !== null && parentOrg !== undefined && parentOrg !== ownerOrg) {
      problems.push({ path, message: `${what} ${show(id)} belongs to organization ${show(parentOrg)}, not ${show(ownerOrg)}` });
    }
  };

  data.powerLines.forEach((row, i) => checkOrg(pathOf('powerLines', row, i), row.OrganizationID));
  data.groups.forEach((row, i) => checkOrg(pathOf('groups', row, i), row.OrganizationID));
  data.devices.forEach((row, i) => {
    const path = pathOf('devices', row, i);
    checkOrg(path, row.OrganizationID);
    if (!orgKnown(row.OrganizationID)) return;
    if (row.PowerLineID !== null) checkParent(`${path}.PowerLineID`, 'power line', row.PowerLineID, row.OrganizationID, declared.powerLines, existing.powerLines);
    row.groups.forEach((g, j) => checkParent(`${path}.groups[${j}]`, 'group', g, row.OrganizationID, declared.groups, existing.groups));
  });
  data.users.forEach((row, i) => {
    const path = pathOf('users', row, i);
    checkOrg(path, row.OrganizationID);
    if (row.password === null && !existing.userEmails.has(row.email.toLowerCase())) {
      problems.push({ path: `${path}.password`, message: 'is required for a new user' });
    }
    if (!orgKnown(row.OrganizationID)) return;
    row.groups.forEach((g, j) => checkParent(`${path}.groups[${j}]`, 'group', g, row.OrganizationID, declared.groups, existing.groups));
  });
  data.integrations.forEach((row, i) => checkOrg(pathOf('integrations', row, i), row.OrganizationID));
  return problems;
}
