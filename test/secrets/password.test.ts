// secrets/password.ts: the slow salted hash of portal passwords. (Here with the other secrets-at-rest
// tests; it moves to test/api/auth/ when that folder exists.)
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DUMMY_HASH, hashPassword, needsRehash, SCRYPT_COST, verifyAgainstDummy, verifyPassword } from '../../secrets/password.js';

test('hash format: scrypt$N$r$p$salt$hash, base64, parameters of today', async () => {
  const stored = await hashPassword('north-Admin-Pass-1');
  const parts = stored.split('$');
  assert.is(parts.length, 6);
  assert.equal(parts.slice(0, 4), ['scrypt', String(SCRYPT_COST.N), String(SCRYPT_COST.r), String(SCRYPT_COST.p)]);
  assert.is(Buffer.from(parts[4]!, 'base64').length, 16);
  assert.is(Buffer.from(parts[5]!, 'base64').length, 32);
  assert.not.ok(stored.includes('north-Admin-Pass-1'));
  assert.is(needsRehash(stored), false);
});

test('verify: right password true, wrong password false; a fresh salt each time', async () => {
  const a = await hashPassword('correct horse');
  const b = await hashPassword('correct horse');
  assert.is.not(a, b);
  assert.ok(await verifyPassword('correct horse', a));
  assert.ok(await verifyPassword('correct horse', b));
  assert.not.ok(await verifyPassword('correct horsE', a));
  assert.not.ok(await verifyPassword('', a));
});

test('NFKC: composed and decomposed accents are one password', async () => {
  const stored = await hashPassword('caf\u00e9-passw0rd');
  assert.ok(await verifyPassword('cafe\u0301-passw0rd', stored));
});

test('older parameters still verify, and ask for a rehash', async () => {
  // made with N=2^14 by the same format
  const { scryptSync } = await import('node:crypto');
  const salt = Buffer.alloc(16, 7);
  const hash = scryptSync('legacy-pass', salt, 32, { N: 2 ** 14, r: 8, p: 1 });
  const stored = `scrypt$16384$8$1$${salt.toString('base64')}$${hash.toString('base64')}`;
  assert.ok(await verifyPassword('legacy-pass', stored));
  assert.ok(needsRehash(stored));
});

test('malformed or hostile stored values are false, never an exception', async () => {
  const bad = [
    '', 'plain', 'bcrypt$2b$10$abc', 'scrypt$32768$8$1$c2FsdA==',
    'scrypt$1000$8$1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA==', // N not a power of two
    `scrypt$${2 ** 30}$8$1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA==`, // would allocate gigabytes
    'scrypt$32768$8$1$!!!$aGFzaA==',
  ];
  for (const stored of bad) assert.is(await verifyPassword('x', stored), false, stored);
});

test('DUMMY_HASH is a well-formed hash at today\'s cost; verifyAgainstDummy answers false', async () => {
  assert.is(needsRehash(DUMMY_HASH), false);
  assert.is(await verifyAgainstDummy('anything'), false);
  assert.is(await verifyPassword('anything', DUMMY_HASH), false);
});

test('cost: an unknown email (dummy) costs what a wrong password costs: the same scrypt work, field by field', async () => {
  // The equal cost is structural, not measured: a stopwatch on a shared CI machine measures the neighbours
  // (docs/decisions.md#tests-assert-outcomes). The dummy runs scrypt with its own parameters, so they must be
  // today's: the same N, r, p, salt and key length as a freshly hashed password.
  const fresh = (await hashPassword('some-password')).split('$');
  const dummy = DUMMY_HASH.split('$');
  assert.is(dummy.length, fresh.length);
  assert.equal(dummy.slice(0, 4), fresh.slice(0, 4), 'scheme, N, r, p');
  assert.equal(dummy.slice(1, 4).map(Number), [SCRYPT_COST.N, SCRYPT_COST.r, SCRYPT_COST.p]);
  assert.is(Buffer.from(dummy[4]!, 'base64').length, Buffer.from(fresh[4]!, 'base64').length, 'salt length');
  assert.is(Buffer.from(dummy[5]!, 'base64').length, Buffer.from(fresh[5]!, 'base64').length, 'key length');
});

test.run();
