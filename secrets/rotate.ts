// `faultline secrets rotate`: re-encrypts every stored credential (and alarm recipient secret) that is not under the current key, in
// one transaction, so a failure (a key missing from the ring) leaves every row as it was. After it
// reports `remaining: 0` the old keys can leave FAULTLINE_SECRET_KEYS.
import type pg from 'pg';
import { decryptCredentials, encryptCredentials } from './credentials.js';
import { SecretsError } from './errors.js';
import type { Keyring } from './keyring.js';
import { withTransaction } from '../db/transaction.js';
import { decryptRecipientSecret, encryptRecipientSecret } from './recipient-secret.js';

export interface RotationResult {
  /** The key everything is now encrypted with. */
  currentKeyId: string;
  /** Rows re-encrypted by this run. */
  rotated: number;
  /** Rows that already were under the current key. */
  alreadyCurrent: number;
  /** Rotated rows per previous key id, e.g. `{ k1: 3 }`. */
  fromKeys: Record<string, number>;
}

interface Row { id: string; credentials: Buffer; credentials_key_id: string | null }

/**
 * @example
 *   const r = await rotateCredentials(pool, loadKeyring({ configured: settings.secretKeys, dataDir, embedded }));
 *   console.log(`${r.rotated} re-encrypted with ${r.currentKeyId}, ${r.alreadyCurrent} already current`);
 */
export async function rotateCredentials(pool: pg.Pool, keyring: Keyring): Promise<RotationResult> {
  const current = keyring.current.id;
  return withTransaction(pool, async (client) => {
    // `for update`: an import running at the same time waits instead of writing a ciphertext we overwrite.
    const { rows } = await client.query<Row>(
      'select id, credentials, credentials_key_id from integrations where credentials is not null order by id for update',
    );
    const ids: string[] = [];
    const ciphertexts: Buffer[] = [];
    const fromKeys: Record<string, number> = {};
    let alreadyCurrent = 0;
    for (const row of rows) {
      if (row.credentials_key_id === current) { alreadyCurrent++; continue; }
      if (row.credentials_key_id === null) throw new SecretsError('MALFORMED_CIPHERTEXT', `integration "${row.id}": credentials have no key id`);
      const plain = decryptCredentials(keyring, row.id, row.credentials, row.credentials_key_id);
      ids.push(row.id);
      ciphertexts.push(encryptCredentials(keyring, row.id, plain).ciphertext);
      fromKeys[row.credentials_key_id] = (fromKeys[row.credentials_key_id] ?? 0) + 1;
    }
    if (ids.length > 0) {
      await client.query(
        `update integrations i set credentials = u.c, credentials_key_id = $3, updated_at = now()
           from unnest($1::text[], $2::bytea[]) as u(id, c) where i.id = u.id`,
        [ids, ciphertexts, current],
      );
    }
    // Alarm recipients' secrets (webhook signing keys), the same way.
    const { rows: recipients } = await client.query<{ id: string; secret: Buffer; secret_key_id: string }>(
      'select id, secret, secret_key_id from alarm_recipients where secret is not null order by id for update',
    );
    let rotated = ids.length;
    for (const row of recipients) {
      if (row.secret_key_id === current) { alreadyCurrent++; continue; }
      const plain = decryptRecipientSecret(keyring, row.id, row.secret, row.secret_key_id);
      const sealed = encryptRecipientSecret(keyring, row.id, plain.toString('utf8'));
      plain.fill(0);
      await client.query('update alarm_recipients set secret = $2, secret_key_id = $3, updated_at = now() where id = $1', [row.id, sealed.ciphertext, sealed.keyId]);
      fromKeys[row.secret_key_id] = (fromKeys[row.secret_key_id] ?? 0) + 1;
      rotated++;
    }
    return { currentKeyId: current, rotated, alreadyCurrent, fromKeys };
  });
}
