// Errors of the secrets store. One table: code -> message. Messages name keys and integrations by
// id only; a plaintext, a key or a ciphertext never goes into a message, a `details` field or a cause.

import { FaultlineError } from '../errors/base.js';

export const SECRETS_ERRORS = {
  /** No key configured where one is required (FAULTLINE_SECRET_KEYS / FAULTLINE_SECRET_KEY_FILE unset). */
  NO_SECRET_KEYS: 'No secret key is configured: set FAULTLINE_SECRET_KEYS or FAULTLINE_SECRET_KEY_FILE.',
  /** The key list cannot be read or parsed (bad id, not 32 bytes of base64, duplicate id, both variables set). */
  BAD_SECRET_KEYS: 'The secret key configuration is invalid.',
  /** A ciphertext names a key id that the keyring does not hold (a key was removed too early). */
  UNKNOWN_KEY_ID: 'The ciphertext was made with a key that is not configured.',
  /** Authentication failed: wrong key, wrong integration (AAD) or tampered bytes. */
  DECRYPT_FAILED: 'The ciphertext could not be decrypted: wrong key, wrong integration or damaged bytes.',
  /** Too short to hold IV and tag, or the decrypted bytes are not a credentials object. */
  MALFORMED_CIPHERTEXT: 'The ciphertext is malformed.',
} as const;

export type SecretsErrorCode = keyof typeof SECRETS_ERRORS;

/**
 * @example
 *   throw new SecretsError('UNKNOWN_KEY_ID', 'integration north-oms: key id "k0" is not configured');
 */
export class SecretsError extends FaultlineError<SecretsErrorCode> {
  constructor(code: SecretsErrorCode, message?: string) {
    // No `cause`: node:crypto errors are harmless today, but a cause is printed by loggers and we keep
    // this type free of anything derived from secret material.
    // Configuration and data errors: trying again cannot help.
    super(code, message ?? SECRETS_ERRORS[code], { retriable: false });
  }
}
