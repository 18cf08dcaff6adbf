// Integrations: non-secret settings as jsonb, credentials only as AES-256-GCM ciphertext (secrets/). A
// stored ciphertext is kept while it decrypts to the credentials in the file: a fresh IV on every import
// would rewrite every row and make a re-import look like a change.
import type pg from 'pg';
import { decryptCredentials, encryptCredentials, sameCredentials } from '../secrets/credentials.js';
import { SecretsError } from '../secrets/errors.js';
import type { Keyring } from '../secrets/keyring.js';
import { countedUpsert } from './upsert-hierarchy.js';
import type { IntegrationInput, KindCounts } from './model.js';

interface Stored { id: string; credentials: Buffer | null; credentials_key_id: string | null }
interface Sealed { ciphertext: Buffer | null; keyId: string | null }

const UPSERT = `
  insert into integrations (id, "OrganizationID", kind, channel, settings, credentials, credentials_key_id, enabled)
  select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::bytea[], $7::text[], $8::boolean[])
  on conflict (id) do update set
    "OrganizationID" = excluded."OrganizationID", kind = excluded.kind, channel = excluded.channel, settings = excluded.settings,
    credentials = excluded.credentials, credentials_key_id = excluded.credentials_key_id, enabled = excluded.enabled,
    updated_at = now()
  where (integrations."OrganizationID", integrations.kind, integrations.channel, integrations.settings,
         integrations.credentials, integrations.credentials_key_id, integrations.enabled)
        is distinct from
        (excluded."OrganizationID", excluded.kind, excluded.channel, excluded.settings,
         excluded.credentials, excluded.credentials_key_id, excluded.enabled)
  returning (xmax = 0) as inserted`;

function seal(row: IntegrationInput, stored: Stored | undefined, keyring: Keyring | undefined, onWarning: (id: string, message: string) => void): Sealed {
  const kept = { ciphertext: stored?.credentials ?? null, keyId: stored?.credentials_key_id ?? null };
  if (row.credentials === 'keep') return kept;
  if (row.credentials === null) return { ciphertext: null, keyId: null };
  // Validation refuses credentials without a keyring; this guards direct callers.
  if (!keyring) throw new SecretsError('NO_SECRET_KEYS', `integration "${row.id}": credentials need a secret key`);
  if (kept.ciphertext && kept.keyId) {
    try {
      if (sameCredentials(decryptCredentials(keyring, row.id, kept.ciphertext, kept.keyId), row.credentials)) return kept;
    } catch (err) {
      if (!(err instanceof SecretsError)) throw err;
      // The file holds the truth: store it anew under the current key, and say why (code only, no secret).
      onWarning(row.id, `stored credentials could not be read (${err.code}); replaced with the file's under key "${keyring.current.id}"`);
    }
  }
  const { ciphertext, keyId } = encryptCredentials(keyring, row.id, row.credentials);
  return { ciphertext, keyId };
}

export async function upsertIntegrations(
  client: pg.ClientBase, rows: readonly IntegrationInput[], keyring: Keyring | undefined, onWarning: (id: string, message: string) => void,
): Promise<KindCounts> {
  if (rows.length === 0) return { inserted: 0, updated: 0, unchanged: 0 };
  // `for update`: a concurrent `secrets rotate` waits, so we never overwrite its fresh ciphertext with a stale one.
  const storedRows = await client.query<Stored>(
    'select id, credentials, credentials_key_id from integrations where id = any($1::text[]) for update', [rows.map((r) => r.id)],
  );
  const stored = new Map(storedRows.rows.map((r) => [r.id, r]));
  const sealed = rows.map((r) => seal(r, stored.get(r.id), keyring, onWarning));
  return countedUpsert(client, UPSERT, [
    rows.map((r) => r.id), rows.map((r) => r.OrganizationID), rows.map((r) => r.kind), rows.map((r) => r.channel),
    rows.map((r) => JSON.stringify(r.settings)), sealed.map((s) => s.ciphertext), sealed.map((s) => s.keyId), rows.map((r) => r.enabled),
  ], rows.length);
}
