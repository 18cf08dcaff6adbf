import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { decryptCredentials, encryptCredentials } from '../../secrets/credentials.js';
import { SecretsError, type SecretsErrorCode } from '../../secrets/errors.js';
import { Keyring } from '../../secrets/keyring.js';

const K1 = { id: 'k1', key: randomBytes(32) };
const K2 = { id: 'k2', key: randomBytes(32) };
const SECRET = { userId: 'fi-north-user', password: 'correct-horse-battery-staple' };

function throwsCode(fn: () => unknown, code: SecretsErrorCode): SecretsError {
  try {
    fn();
  } catch (err) {
    assert.instance(err, SecretsError);
    const e = err as SecretsError;
    assert.is(e.code, code);
    assert.is(e.retriable, false);
    // Nothing secret in anything a logger might print.
    for (const text of [e.message, String(e.stack), inspect(e), JSON.stringify(e)]) {
      assert.not.ok(text.includes(SECRET.password), `password leaked: ${text}`);
      assert.not.ok(text.includes(SECRET.userId), `userId leaked: ${text}`);
    }
    return e;
  }
  assert.unreachable(`expected ${code}`);
  throw new Error('unreachable');
}

test('round trip: what is encrypted decrypts to the same credentials', () => {
  const ring = new Keyring([K1]);
  const sealed = encryptCredentials(ring, 'north-oms', SECRET);
  assert.is(sealed.keyId, 'k1');
  assert.equal(decryptCredentials(ring, 'north-oms', sealed.ciphertext, sealed.keyId), SECRET);
});

test('layout: 12-byte IV | ciphertext | 16-byte tag, and the plaintext is not visible in it', () => {
  const sealed = encryptCredentials(new Keyring([K1]), 'north-oms', SECRET);
  const plainLength = Buffer.byteLength(JSON.stringify(SECRET));
  assert.is(sealed.ciphertext.length, 12 + plainLength + 16);
  assert.not.ok(sealed.ciphertext.includes(Buffer.from(SECRET.password)));
});

test('a fresh IV each time: the same credentials encrypt to different bytes', () => {
  const ring = new Keyring([K1]);
  const a = encryptCredentials(ring, 'north-oms', SECRET).ciphertext;
  const b = encryptCredentials(ring, 'north-oms', SECRET).ciphertext;
  assert.not.ok(a.equals(b));
  assert.not.ok(a.subarray(0, 12).equals(b.subarray(0, 12)));
});

test('tampering with any one byte (IV, body or tag) is DECRYPT_FAILED', () => {
  const ring = new Keyring([K1]);
  const { ciphertext, keyId } = encryptCredentials(ring, 'north-oms', SECRET);
  for (let i = 0; i < ciphertext.length; i++) {
    const bad = Buffer.from(ciphertext);
    bad[i] = bad[i]! ^ 0x01;
    throwsCode(() => decryptCredentials(ring, 'north-oms', bad, keyId), 'DECRYPT_FAILED');
  }
});

test('a ciphertext moved to another integration (other AAD) is DECRYPT_FAILED', () => {
  const ring = new Keyring([K1]);
  const { ciphertext, keyId } = encryptCredentials(ring, 'north-oms', SECRET);
  const e = throwsCode(() => decryptCredentials(ring, 'south-oms', ciphertext, keyId), 'DECRYPT_FAILED');
  assert.match(e.message, /south-oms/);
});

test('a wrong key under the same id is DECRYPT_FAILED', () => {
  const { ciphertext } = encryptCredentials(new Keyring([K1]), 'north-oms', SECRET);
  const impostor = new Keyring([{ id: 'k1', key: randomBytes(32) }]);
  throwsCode(() => decryptCredentials(impostor, 'north-oms', ciphertext, 'k1'), 'DECRYPT_FAILED');
});

test('a key id the keyring does not hold is UNKNOWN_KEY_ID, naming the id', () => {
  const { ciphertext } = encryptCredentials(new Keyring([K1]), 'north-oms', SECRET);
  const e = throwsCode(() => decryptCredentials(new Keyring([K2]), 'north-oms', ciphertext, 'k1'), 'UNKNOWN_KEY_ID');
  assert.match(e.message, /"k1"/);
});

test('too short to hold IV and tag is MALFORMED_CIPHERTEXT', () => {
  throwsCode(() => decryptCredentials(new Keyring([K1]), 'north-oms', Buffer.alloc(27), 'k1'), 'MALFORMED_CIPHERTEXT');
});

test('rotation: a ring with a new first key encrypts with it and still decrypts the old ciphertext', () => {
  const old = encryptCredentials(new Keyring([K1]), 'north-oms', SECRET);
  const rotated = new Keyring([K2, K1]);
  assert.is(rotated.current.id, 'k2');
  assert.equal(decryptCredentials(rotated, 'north-oms', old.ciphertext, old.keyId), SECRET);
  const fresh = encryptCredentials(rotated, 'north-oms', SECRET);
  assert.is(fresh.keyId, 'k2');
  assert.equal(decryptCredentials(new Keyring([K2]), 'north-oms', fresh.ciphertext, 'k2'), SECRET);
  throwsCode(() => decryptCredentials(new Keyring([K1]), 'north-oms', fresh.ciphertext, 'k1'), 'DECRYPT_FAILED');
});

test('a Uint8Array view (as pg may hand back) decrypts too', () => {
  const ring = new Keyring([K1]);
  const { ciphertext } = encryptCredentials(ring, 'north-oms', SECRET);
  const padded = new Uint8Array(ciphertext.length + 8);
  padded.set(ciphertext, 4);
  assert.equal(decryptCredentials(ring, 'north-oms', padded.subarray(4, 4 + ciphertext.length), 'k1'), SECRET);
});

test.run();
