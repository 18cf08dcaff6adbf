// Integration keys' pure rules (secrets/integration-key.ts; docs/decisions.md#integration-keys-and-the-mask): the
// form of a key, what is stored of it, and the comparison.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { integrationSecretHash, integrationSecretMatches, newIntegrationKey, parseIntegrationKey } from '../../secrets/integration-key.js';
import { maskText } from '../../domain/fault-masking.js';

test('a new key: flk_<16 hex id>_<64 hex secret>, its stored hash the SHA-256 of the secret only', () => {
  const k = newIntegrationKey();
  assert.match(k.key, /^flk_[0-9a-f]{16}_[0-9a-f]{64}$/);
  assert.equal(parseIntegrationKey(k.key), { id: k.id, secret: k.secret });
  assert.ok(k.secretHash.equals(integrationSecretHash(k.secret)));
  assert.is(k.secretHash.length, 32);
  assert.not.ok(k.secretHash.toString('hex').includes(k.secret));
  const again = newIntegrationKey(k.id);
  assert.is(again.id, k.id, 'rotation keeps the id');
  assert.is.not(again.secret, k.secret, 'and draws a new secret');
});

test('anything else is not a key', () => {
  const { key } = newIntegrationKey();
  for (const bad of ['', 'flk_', key.toUpperCase(), key.slice(0, -1), `${key}0`, key.replace('flk_', 'flx_'), ` ${key}`, key.replace(/_([0-9a-f]{64})$/, '-$1'), 'eyJhbGciOiJIUzI1NiJ9.e30.x']) {
    assert.is(parseIntegrationKey(bad), null, bad);
  }
});

test('the secret matches its own hash only; a stored value of another length never matches', () => {
  const k = newIntegrationKey();
  assert.ok(integrationSecretMatches(k.secret, k.secretHash));
  assert.not.ok(integrationSecretMatches(newIntegrationKey().secret, k.secretHash));
  assert.not.ok(integrationSecretMatches(k.secret, k.secretHash.subarray(0, 31)));
  assert.not.ok(integrationSecretMatches(k.secret, Buffer.alloc(32)));
});

test('a key is one word: the mask\'s word rule cannot change part of it in the answer that shows it', () => {
  for (let i = 0; i < 200; i++) {
    const { key } = newIntegrationKey();
    assert.is(maskText(`{"key":"${key}"}`), `{"key":"${key}"}`);
  }
  assert.is(maskText('flk_0_sotf'), 'flk_0_sotf');
});

test.run();
