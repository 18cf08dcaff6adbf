// Machine credentials of the SCADA integrations (docs/decisions.md#integration-keys-and-the-mask): a random key
// shown once, of which only a SHA-256 of the secret part is stored. A slow salted hash (secrets/password.ts) is
// for what people choose; a key of 256 random bits cannot be guessed or looked up in a table, so one SHA-256 is
// as strong and costs microseconds on every request. Compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Every key starts so: a secret scanner (or a person) can tell what a leaked string is. */
export const INTEGRATION_KEY_PREFIX = 'flk_';
/**
 * `flk_<id: 16 hex>_<secret: 64 hex>`. The id names the key in lists and logs and finds its row; only the
 * secret proves it. Hex only: the whole key is one word, so no text rule (the fault mask's word rule
 * included) can change part of it on its way to the admin who creates it.
 */
const KEY_FORMAT = /^flk_([0-9a-f]{16})_([0-9a-f]{64})$/;

export interface IntegrationKeyParts { id: string; secret: string }

export interface NewIntegrationKey extends IntegrationKeyParts {
  /** What the caller sends as `Authorization: Bearer <key>`; shown once, never stored. */
  key: string;
  /** What is stored. */
  secretHash: Buffer;
}

/** A new key; `id` given: a new secret for that key (rotation). */
export function newIntegrationKey(id: string = randomBytes(8).toString('hex')): NewIntegrationKey {
  const secret = randomBytes(32).toString('hex');
  return { id, secret, key: `${INTEGRATION_KEY_PREFIX}${id}_${secret}`, secretHash: integrationSecretHash(secret) };
}

/** The id and secret of a key as sent, or null when it is not one. */
export function parseIntegrationKey(text: string): IntegrationKeyParts | null {
  const m = KEY_FORMAT.exec(text);
  return m ? { id: m[1]!, secret: m[2]! } : null;
}

export const integrationSecretHash = (secret: string): Buffer => createHash('sha256').update(secret, 'utf8').digest();

/** Whether `secret` is the one `stored` is the hash of, in time that does not depend on where they differ. */
export function integrationSecretMatches(secret: string, stored: Uint8Array): boolean {
  const hash = integrationSecretHash(secret);
  return stored.length === hash.length && timingSafeEqual(hash, stored);
}
