// An alarm recipient's secret at rest (a webhook's HMAC signing key): sealed like integration credentials
// (aead.ts), bound to the recipient id, opened only inside the send.
import { openBytes, sealBytes, type Sealed } from './aead.js';
import type { Keyring } from './keyring.js';

const AAD_PREFIX = 'faultline/alarm-recipient-secret/v1\0';
const aad = (recipientId: string) => Buffer.from(AAD_PREFIX + recipientId, 'utf8');

export function encryptRecipientSecret(keyring: Keyring, recipientId: string, secret: string): Sealed {
  const plain = Buffer.from(secret, 'utf8');
  try {
    return sealBytes(keyring, aad(recipientId), plain);
  } finally {
    plain.fill(0);
  }
}

export function decryptRecipientSecret(keyring: Keyring, recipientId: string, ciphertext: Uint8Array, keyId: string): Buffer {
  return openBytes(keyring, aad(recipientId), ciphertext, keyId, `alarm recipient "${recipientId}" secret`);
}
