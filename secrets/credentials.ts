// Integration credentials at rest (spec 5.5; docs/decisions.md#multispeak-notifications): AES-256-GCM.
// Stored bytes: 12-byte IV | ciphertext | 16-byte tag, beside the id of the key (`credentials_key_id`).
// The integration id is the AAD, so a ciphertext copied onto another integration's row fails to decrypt
// instead of sending one customer's password to another customer's endpoint.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { SecretsError } from './errors.js';
import type { Keyring } from './keyring.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;
// Versioned so a future format (another cipher, other fields) can never be confused with this one.
const AAD_PREFIX = 'faultline/integration-credentials/v1\0';

export interface Credentials {
  userId: string;
  password: string;
}

export interface EncryptedCredentials {
  ciphertext: Buffer;
  keyId: string;
}

function aad(integrationId: string): Buffer {
  return Buffer.from(AAD_PREFIX + integrationId, 'utf8');
}

/**
 * Encrypts with the keyring's current key and a fresh random IV.
 *
 * @example
 *   const { ciphertext, keyId } = encryptCredentials(keyring, 'north-oms', { userId: 'fi', password: 's3cret' });
 */
export function encryptCredentials(keyring: Keyring, integrationId: string, credentials: Credentials): EncryptedCredentials {
  const { id, key } = keyring.current;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad(integrationId));
  const plain = Buffer.from(JSON.stringify({ userId: credentials.userId, password: credentials.password }), 'utf8');
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  plain.fill(0);
  return { ciphertext: Buffer.concat([iv, body, cipher.getAuthTag()]), keyId: id };
}

/**
 * Decrypts what `encryptCredentials` made for the same integration. Any failure is a `SecretsError`
 * (`UNKNOWN_KEY_ID`, `DECRYPT_FAILED`, `MALFORMED_CIPHERTEXT`) whose message names the integration and key id
 * only.
 */
export function decryptCredentials(keyring: Keyring, integrationId: string, ciphertext: Uint8Array, keyId: string): Credentials {
  const where = `integration "${integrationId}"`;
  const entry = keyring.key(keyId);
  if (!entry) throw new SecretsError('UNKNOWN_KEY_ID', `${where}: credentials are encrypted with key "${keyId}", which is not configured`);
  const bytes = Buffer.from(ciphertext.buffer, ciphertext.byteOffset, ciphertext.byteLength);
  if (bytes.length < IV_BYTES + TAG_BYTES) throw new SecretsError('MALFORMED_CIPHERTEXT', `${where}: credentials ciphertext is too short`);
  let plain: Buffer;
  try {
    const decipher = createDecipheriv('aes-256-gcm', entry.key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(aad(integrationId));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    plain = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new SecretsError('DECRYPT_FAILED', `${where}: credentials do not decrypt with key "${keyId}" (wrong key, wrong integration or damaged bytes)`);
  }
  try {
    const value: unknown = JSON.parse(plain.toString('utf8'));
    const { userId, password } = (value ?? {}) as Record<string, unknown>;
    if (typeof userId === 'string' && typeof password === 'string') return { userId, password };
  } catch {
    // fall through: the message below must not quote the bytes
  } finally {
    plain.fill(0);
  }
  throw new SecretsError('MALFORMED_CIPHERTEXT', `${where}: decrypted credentials are not a {userId, password} object`);
}

/** True when two credentials are the same values (the importer keeps a ciphertext that still matches). */
export function sameCredentials(a: Credentials, b: Credentials): boolean {
  return a.userId === b.userId && a.password === b.password;
}
