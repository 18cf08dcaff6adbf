// The integration_keys table as the API needs it (migration 0020; docs/decisions.md#integration-keys-and-the-mask):
// an organisation admin's create, list, rotate and revoke (the operator's create and rotate too, through
// `faultline integration-keys`), and the one read of every request made with a key.
// Only the SHA-256 of a key's secret is stored; the key itself leaves this module once, in create or rotate.
import type pg from 'pg';
import { newIntegrationKey } from '../../secrets/integration-key.js';
import { isStorableText } from '../request.js';
import { effectiveTimeZone } from '../../domain/display-time.js';

export const KEY_NAME_MAX = 200;

/** What is wrong with a key's name (what it is for, e.g. "SCADA master A"), or null; the name given is trimmed first. */
export function keyNameProblem(name: string): string | null {
  return !name || name.length > KEY_NAME_MAX || !isStorableText(name) ? `must be a non-empty text of at most ${KEY_NAME_MAX} characters (what the key is for, e.g. "SCADA master A")` : null;
}

/** A key as its organisation's admins list it: never the key, never its hash. */
export interface IntegrationKeyInfo {
  id: string;
  name: string;
  role: 'integration';
  createdBy: string;
  createdAt: string;
  rotatedAt: string | null;
  /** To the minute: a key used all day is written once a minute, not on every request. */
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** What a request made with a key needs: whose it is, its hash, and the organisation's mask and zone. */
export interface KeyForAuth {
  org: string;
  secretSha256: Buffer;
  revoked: boolean;
  maskFaultDetails: boolean;
  timeZone: string;
}

export interface IntegrationKeyStore {
  /** A new key of the organisation; `key` is shown to the admin once. */
  create(org: string, name: string, createdBy: string): Promise<{ info: IntegrationKeyInfo; key: string }>;
  list(org: string): Promise<IntegrationKeyInfo[]>;
  /** A new secret for a key that is not revoked (the old one stops at once); null: no such key. */
  rotate(org: string, id: string): Promise<{ info: IntegrationKeyInfo; key: string } | null>;
  /** Revokes for good (again: no change); null: no such key. */
  revoke(org: string, id: string): Promise<IntegrationKeyInfo | null>;
  findForAuth(id: string): Promise<KeyForAuth | null>;
  recordUse(id: string): Promise<void>;
}

const COLUMNS = 'id, name, role, created_by, created_at, rotated_at, last_used_at, revoked_at';

interface Row { id: string; name: string; role: 'integration'; created_by: string; created_at: Date; rotated_at: Date | null; last_used_at: Date | null; revoked_at: Date | null }

const iso = (d: Date | null) => d?.toISOString() ?? null;
const infoOf = (r: Row): IntegrationKeyInfo => ({
  id: r.id, name: r.name, role: r.role, createdBy: r.created_by, createdAt: r.created_at.toISOString(),
  rotatedAt: iso(r.rotated_at), lastUsedAt: iso(r.last_used_at), revokedAt: iso(r.revoked_at),
});

export function pgIntegrationKeyStore(pool: pg.Pool): IntegrationKeyStore {
  return {
    async create(org, name, createdBy) {
      const made = newIntegrationKey();
      const { rows: [row] } = await pool.query<Row>(
        `insert into integration_keys (id, "OrganizationID", name, secret_sha256, created_by) values ($1, $2, $3, $4, $5) returning ${COLUMNS}`,
        [made.id, org, name, made.secretHash, createdBy]);
      return { info: infoOf(row!), key: made.key };
    },
    async list(org) {
      const { rows } = await pool.query<Row>(`select ${COLUMNS} from integration_keys where "OrganizationID" = $1 order by created_at, id`, [org]);
      return rows.map(infoOf);
    },
    async rotate(org, id) {
      const made = newIntegrationKey(id);
      const { rows: [row] } = await pool.query<Row>(
        `update integration_keys set secret_sha256 = $3, rotated_at = now()
          where id = $1 and "OrganizationID" = $2 and revoked_at is null returning ${COLUMNS}`, [id, org, made.secretHash]);
      return row ? { info: infoOf(row), key: made.key } : null;
    },
    async revoke(org, id) {
      const { rows: [row] } = await pool.query<Row>(
        `update integration_keys set revoked_at = coalesce(revoked_at, now()) where id = $1 and "OrganizationID" = $2 returning ${COLUMNS}`, [id, org]);
      return row ? infoOf(row) : null;
    },
    async findForAuth(id) {
      const { rows: [row] } = await pool.query<{ org: string; secret_sha256: Buffer; revoked: boolean; mask: boolean; tz: string | null }>(
        `select k."OrganizationID" as org, k.secret_sha256, k.revoked_at is not null as revoked, o."MaskFaultDetails" as mask, o.timezone as tz
           from integration_keys k join organizations o on o."OrganizationID" = k."OrganizationID" where k.id = $1`, [id]);
      return row ? { org: row.org, secretSha256: row.secret_sha256, revoked: row.revoked, maskFaultDetails: row.mask, timeZone: effectiveTimeZone(row.tz) } : null;
    },
    async recordUse(id) {
      await pool.query(`update integration_keys set last_used_at = now() where id = $1 and (last_used_at is null or last_used_at < now() - interval '1 minute')`, [id]);
    },
  };
}
