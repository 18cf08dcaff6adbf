// Credentials at rest: keyring (env / file / generated), AES-256-GCM sealing, rotation.
export { Keyring, loadKeyring, parseKeyList, newKeyLine, defaultKeyFile, KEY_BYTES, type SecretKey, type LoadKeyringOptions } from './keyring.js';
export { encryptCredentials, decryptCredentials, sameCredentials, type Credentials, type EncryptedCredentials } from './credentials.js';
export { rotateCredentials, type RotationResult } from './rotate.js';
export { SecretsError, SECRETS_ERRORS, type SecretsErrorCode } from './errors.js';
export { encryptRecipientSecret, decryptRecipientSecret } from './recipient-secret.js';
