// The HS256 key. `JWT_SECRET` when set (Settings.jwtSecret, checked in config/settings.ts; every API process of a
// deployment must share it); else, for the embedded default, a random key generated once and kept in
// DATA_DIR/jwt-secret (mode 0600), so tokens survive a restart. The key is never logged.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const MIN_BYTES = 32;

export interface JwtSecretSource {
  /** Settings.jwtSecret: JWT_SECRET's bytes, or null to use the generated key. */
  configured: Uint8Array | null;
  dataDir: string;
}

export function resolveJwtSecret({ configured, dataDir }: JwtSecretSource): Uint8Array {
  if (configured) return configured;
  const file = join(dataDir, 'jwt-secret');
  if (existsSync(file)) {
    const stored = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
    if (stored.length < MIN_BYTES) throw new Error(`${file} holds fewer than ${MIN_BYTES} bytes; delete it to generate a new key`);
    return new Uint8Array(stored);
  }
  mkdirSync(dataDir, { recursive: true });
  const fresh = randomBytes(MIN_BYTES * 2);
  // 'wx': two processes starting at once must not overwrite each other's key.
  try {
    writeFileSync(file, fresh.toString('base64url') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return resolveJwtSecret({ configured, dataDir });
    throw err;
  }
  chmodSync(file, 0o600);
  return new Uint8Array(fresh);
}
