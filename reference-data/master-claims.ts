// A SCADA master belongs to one organisation (docs/decisions.md#scada-listener-slots-sessions-and-claims): an
// import may not give a dnp3 or iec104 integration a master identity that another organisation's integration of
// that kind already claims (stored, enabled or not, or earlier in the same file). Another tenant claiming it (its
// own CA, the victim's public CA, or a pin of the victim master's public certificate) would make the master
// ambiguous and shut it out. The problem does not say which organisation holds the claim.
import type pg from 'pg';
import type { Problem } from './errors.js';
import type { IntegrationInput } from './model.js';

const MASTER_KINDS = ['dnp3', 'iec104'];

const claimOf = (kind: string, identity: unknown): string | undefined =>
  MASTER_KINDS.includes(kind) && typeof identity === 'string' && identity !== '' ? `${kind}|${identity.toLowerCase()}` : undefined;

export async function checkMasterClaims(client: pg.ClientBase, rows: readonly IntegrationInput[], pathOf: (row: IntegrationInput, i: number) => string): Promise<Problem[]> {
  if (!rows.some((r) => claimOf(r.kind, r.settings.masterIdentity))) return [];
  // Stored claims, except the rows this file replaces (the file's version of them is what counts).
  const stored = await client.query<{ kind: string; identity: string; org: string }>(
    `select kind, settings->>'masterIdentity' as identity, "OrganizationID" as org from integrations
      where kind = any($1::text[]) and settings ? 'masterIdentity' and not (id = any($2::text[]))`,
    [MASTER_KINDS, rows.map((r) => r.id)],
  );
  const owners = new Map<string, Set<string>>();
  const claim = (key: string, org: string) => owners.set(key, (owners.get(key) ?? new Set()).add(org));
  for (const s of stored.rows) { const key = claimOf(s.kind, s.identity); if (key) claim(key, s.org); }
  const problems: Problem[] = [];
  rows.forEach((row, i) => {
    const key = claimOf(row.kind, row.settings.masterIdentity);
    if (!key) return;
    const others = [...(owners.get(key) ?? [])].filter((org) => org !== row.OrganizationID);
    if (others.length > 0) {
      problems.push({ path: `${pathOf(row, i)}.settings.masterIdentity`, message: `master identity "${String(row.settings.masterIdentity)}" is already claimed by another organisation's ${row.kind} integration; a SCADA master belongs to one organisation (give this master a certificate with a name of its own)` });
      return;
    }
    claim(key, row.OrganizationID);
  });
  return problems;
}
