// Password hashing for portal users (docs/decisions.md#identity-and-access: a slow salted hash).
// scrypt from node:crypto, so no native dependency. Stored as `scrypt$N$r$p$<salt b64>$<hash b64>`: the
// parameters travel with the hash, so raising the cost later leaves old hashes verifiable
// (`needsRehash` tells the caller when to store a new one).
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * N=2^15, r=8, p=1: measured 72 ms per hash on the 2-core build machine (2^14: 43 ms, 2^16: 137 ms),
 * inside the 50-100 ms target. 32 MiB of memory per hash.
 */
export const SCRYPT_COST = { N: 2 ** 15, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const HASH_BYTES = 32;

// Bounds for parameters read back from storage: a corrupt or hostile row must not make one login
// allocate gigabytes or spin for minutes.
const MAX_LOG2_N = 20;
const MAX_R = 32;
const MAX_P = 16;

interface ParsedHash { N: number; r: number; p: number; salt: Buffer; hash: Buffer }

function scryptAsync(plain: string, salt: Buffer, length: number, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  // scrypt needs 128*N*r bytes; Node's default maxmem (32 MiB) is exactly that at our cost, so give headroom.
  const options: ScryptOptions = { N: cost.N, r: cost.r, p: cost.p, maxmem: 256 * cost.N * cost.r };
  return new Promise((resolve, reject) => {
    // NFKC: the same password typed on two keyboards (composed vs decomposed accents) is one password
    // (NIST SP 800-63B 5.1.1.2).
    scrypt(plain.normalize('NFKC'), salt, length, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

function parseHash(stored: string): ParsedHash | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [N, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  const isPow2 = Number.isInteger(N) && N >= 2 && N <= 2 ** MAX_LOG2_N && (N & (N - 1)) === 0;
  if (!isPow2 || !Number.isInteger(r) || r < 1 || r > MAX_R || !Number.isInteger(p) || p < 1 || p > MAX_P) return null;
  const b64 = /^[A-Za-z0-9+/]+={0,2}$/;
  if (!b64.test(parts[4]!) || !b64.test(parts[5]!)) return null;
  const salt = Buffer.from(parts[4]!, 'base64');
  const hash = Buffer.from(parts[5]!, 'base64');
  if (salt.length < 8 || hash.length < 16 || hash.length > 64) return null;
  return { N, r, p, salt, hash };
}

/**
 * Hashes a password with a fresh random salt.
 *
 * @example
 *   const stored = await hashPassword('correct horse'); // 'scrypt$32768$8$1$...$...'
 */
export async function hashPassword(plain: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await scryptAsync(plain, salt, HASH_BYTES, SCRYPT_COST);
  return ['scrypt', SCRYPT_COST.N, SCRYPT_COST.r, SCRYPT_COST.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

/**
 * True when `plain` is the password of `stored`. A malformed stored value is `false` (after the same
 * work as a real check, so it cannot be told apart by timing), never an exception.
 */
export async function verifyPassword(plain: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (!parsed) {
    await verifyAgainstDummy(plain);
    return false;
  }
  const candidate = await scryptAsync(plain, parsed.salt, parsed.hash.length, parsed);
  return timingSafeEqual(candidate, parsed.hash);
}

/** True when `stored` was made with other parameters than today's: store a fresh hash at the next login. */
export function needsRehash(stored: string): boolean {
  const parsed = parseHash(stored);
  return !parsed || parsed.N !== SCRYPT_COST.N || parsed.r !== SCRYPT_COST.r || parsed.p !== SCRYPT_COST.p
    || parsed.salt.length !== SALT_BYTES || parsed.hash.length !== HASH_BYTES;
}

/**
 * A hash of a random value nobody knows, at today's cost. Login checks an unknown email against it, so a
 * wrong email costs the same time as a wrong password (docs/decisions.md: both give the same answer).
 */
export const DUMMY_HASH = 'scrypt$32768$8$1$5zVC7ooZoPF6CU5kdbIuVQ==$KWlb/75E3LcR20+xZTJFPdU8pKiFCplZjGLd+PKzhsM=';
const DUMMY = parseHash(DUMMY_HASH)!;

/** Spends the time of one password check and answers `false`; for logins with an unknown email. */
export async function verifyAgainstDummy(plain: string): Promise<false> {
  const candidate = await scryptAsync(plain, DUMMY.salt, DUMMY.hash.length, DUMMY);
  timingSafeEqual(candidate, DUMMY.hash);
  return false;
}
