// The one sealing of secrets at rest: AES-256-GCM under the keyring's current key, bytes IV (12) |
// ciphertext | tag (16), beside the key id. `aad` binds a ciphertext to its row and purpose, so bytes
// copied onto another row (or into another purpose) fail to open.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { SecretsError } from './errors.js';
import type { Keyring } from './keyring.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface Sealed { ciphertext: Buffer; keyId: string }

export function sealBytes(keyring: Keyring, aad: Buffer, plain: Buffer): Sealed {
  const { id, key } = keyring.current;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return { ciphertext: Buffer.concat([iv, body, cipher.getAuthTag()]), keyId: id };
}

/** Opens what sealBytes made with the same `aad`; `where` names the row in messages (never the bytes). */
export function openBytes(keyring: Keyring, aad: Buffer, ciphertext: Uint8Array, keyId: string, where: string): Buffer {
  const entry = keyring.key(keyId);
  if (!entry) throw new SecretsError('UNKNOWN_KEY_ID', `${where}: encrypted with key "${keyId}", which is not configured`);
  const bytes = Buffer.from(ciphertext.buffer, ciphertext.byteOffset, ciphertext.byteLength);
  if (bytes.length < IV_BYTES + TAG_BYTES) throw new SecretsError('MALFORMED_CIPHERTEXT', `${where}: ciphertext is too short`);
  try {
    const decipher = createDecipheriv('aes-256-gcm', entry.key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(aad);
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new SecretsError('DECRYPT_FAILED', `${where}: does not decrypt with key "${keyId}" (wrong key, wrong row or damaged bytes)`);
  }
}
