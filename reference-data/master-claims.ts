// A SCADA master belongs to one organisation (docs/decisions.md#scada-listener-slots-sessions-and-claims): an
// import may not give a dnp3 or iec104 integration a master identity that another organisation's integration of
// that kind already claims (stored, enabled or not, or earlier in the same file). Another tenant claiming it (its
// own CA, the victim's public CA, or a pin of the victim master's public certificate) would make the master
// ambiguous and shut it out. A dedicated port belongs to one organisation and one protocol the same way
// (docs/decisions.md#dedicated-master-ports): another organisation naming it would have its master served on that
// port, another protocol would bind it first after a restart. A pin claims every name on its certificate (claimedNames).
// The problems never say which organisation holds the claim.
import type pg from 'pg';
import type { PortRange } from '../config/settings.js';
import { claimName } from '../integrations/master-certificate.js';
import { pinnedCertificateNames } from '../integrations/master-settings.js';
import { MAX_DEDICATED_PORTS } from '../integrations/master-ports.js';
import type { Problem } from './errors.js';
import type { IntegrationInput } from './model.js';

const MASTER_KINDS = ['dnp3', 'iec104'];

const claimOf = (kind: string, identity: unknown): string | undefined =>
  MASTER_KINDS.includes(kind) && typeof identity === 'string' && identity !== '' ? `${kind}|${claimName(identity)}` : undefined;

/**
 * The claims an integration makes: its master identity first, then, for a pin, every other name its pinned
 * certificate answers to (the listener would admit that certificate under any of them: a pin of another
 * organisation's master naming its second SAN makes that master ambiguous). A pinned file that cannot be read
 * claims only the identity (the listener will not admit it until it can).
 */
function claimedNames(kind: string, identity: unknown, pinnedFile: string | null): string[] {
  const own = claimOf(kind, identity);
  if (!own) return [];
  const names = pinnedFile ? pinnedCertificateNames(pinnedFile) ?? [] : [];
  return [...new Set([own, ...names.map((n) => claimOf(kind, n)!)])];
}

const portOf = (kind: string, port: unknown): number | undefined =>
  MASTER_KINDS.includes(kind) && typeof port === 'number' && Number.isInteger(port) ? port : undefined;

/** Who holds a claim: one set of holders per key. */
class Claims<K> {
  readonly holders = new Map<K, Set<string>>();
  add(key: K, holder: string): void { this.holders.set(key, (this.holders.get(key) ?? new Set()).add(holder)); }
  others(key: K, holder: string): string[] { return [...(this.holders.get(key) ?? [])].filter((h) => h !== holder); }
}

export interface MasterClaimRules {
  /** SCADA_DEDICATED_PORTS: a dedicated port outside is refused; absent: any port. */
  dedicatedPorts?: PortRange;
}

export async function checkMasterClaims(
  client: pg.ClientBase, rows: readonly IntegrationInput[], pathOf: (row: IntegrationInput, i: number) => string, rules: MasterClaimRules = {},
): Promise<Problem[]> {
  if (!rows.some((r) => claimOf(r.kind, r.settings.masterIdentity) || portOf(r.kind, r.settings.port) !== undefined)) return [];
  // Stored claims, except the rows this file replaces (the file's version of them is what counts).
  const stored = await client.query<{ kind: string; identity: string | null; pin: string | null; port: unknown; org: string }>(
    `select kind, settings->>'masterIdentity' as identity, settings->'port' as port, "OrganizationID" as org,
            case when settings->>'certificateMode' = 'pinned' then settings->>'pinnedCertificateFile' end as pin
       from integrations
      where kind = any($1::text[]) and (settings ? 'masterIdentity' or settings ? 'port') and not (id = any($2::text[]))`,
    [MASTER_KINDS, rows.map((r) => r.id)],
  );
  const identities = new Claims<string>();
  // A port's holder is kind and organisation: either differing is a conflict.
  const ports = new Claims<number>();
  for (const s of stored.rows) {
    for (const key of claimedNames(s.kind, s.identity, s.pin)) identities.add(key, s.org);
    const port = portOf(s.kind, s.port);
    if (port !== undefined) ports.add(port, `${s.kind}|${s.org}`);
  }
  const portsOfKind = (kind: string) => [...ports.holders].filter(([, h]) => [...h].some((x) => x.startsWith(`${kind}|`))).length;
  const problems: Problem[] = [];
  rows.forEach((row, i) => {
    const pin = row.settings.certificateMode === 'pinned' && typeof row.settings.pinnedCertificateFile === 'string' ? row.settings.pinnedCertificateFile : null;
    const keys = claimedNames(row.kind, row.settings.masterIdentity, pin);
    const taken = keys.find((key) => identities.others(key, row.OrganizationID).length > 0);
    if (taken === keys[0] && taken !== undefined) {
      problems.push({ path: `${pathOf(row, i)}.settings.masterIdentity`, message: `master identity "${String(row.settings.masterIdentity)}" is already claimed by another organisation's ${row.kind} integration; a SCADA master belongs to one organisation (give this master a certificate with a name of its own)` });
    } else if (taken !== undefined) {
      problems.push({ path: `${pathOf(row, i)}.settings.pinnedCertificateFile`, message: `the pinned certificate also names "${taken.slice(taken.indexOf('|') + 1)}", a master identity another organisation's ${row.kind} integration claims; a pin proves every name on the certificate, and a SCADA master belongs to one organisation` });
    } else for (const key of keys) identities.add(key, row.OrganizationID);
    const port = portOf(row.kind, row.settings.port);
    if (port === undefined) return;
    const path = `${pathOf(row, i)}.settings.port`;
    const range = rules.dedicatedPorts;
    const holder = `${row.kind}|${row.OrganizationID}`;
    if (range && (port < range.from || port > range.to)) {
      problems.push({ path, message: `port ${port} is outside SCADA_DEDICATED_PORTS (${range.from}-${range.to}); leave port out to be served on the shared port` });
    } else if (ports.others(port, holder).length > 0) {
      problems.push({ path, message: `port ${port} is already the dedicated port of another organisation's integration or of another protocol; a dedicated port serves one organisation's masters of one protocol` });
    } else if (!ports.holders.has(port) && portsOfKind(row.kind) >= MAX_DEDICATED_PORTS) {
      problems.push({ path, message: `more than ${MAX_DEDICATED_PORTS} dedicated ${row.kind} ports; integrations can share their organisation's dedicated port or the shared port` });
    } else ports.add(port, holder);
  });
  return problems;
}
