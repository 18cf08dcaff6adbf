// The token cache (api/auth/token-cache.ts): one verification per token, never an answer past the token's
// expiry or the cache's time to live, bounded in entries, and a refused token never kept.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cachedTokens, TOKEN_CACHE_TTL_S } from '../../api/auth/token-cache.js';
import { createTokenService, TOKEN_LIFETIME_S, type TokenService } from '../../api/auth/tokens.js';

const secret = new Uint8Array(32).fill(3);
const T0 = 1_800_000_000;
const claims = { userId: 7, org: 'north', role: 'admin' as const, timeZone: 'America/Chicago' };

/** A real token service on a clock the test moves, counting the verifications that reach jose. */
function counted(): { tokens: TokenService; clock: { s: number }; verifications: () => number } {
  const clock = { s: T0 };
  const real = createTokenService({ secret, nowS: () => clock.s });
  let n = 0;
  const inner: TokenService = { sign: (c) => real.sign(c), verify: (t) => { n++; return real.verify(t); } };
  return { tokens: cachedTokens(inner, { nowS: () => clock.s, maxEntries: 3 }), clock, verifications: () => n };
}

test('a token is verified once, then answered from memory with the same claims', async () => {
  const { tokens, verifications } = counted();
  const jwt = await tokens.sign(claims);
  for (let i = 0; i < 5; i++) assert.equal(await tokens.verify(jwt), { ok: true, claims });
  assert.is(verifications(), 1);
});

test('a kept token is refused from its expiry second on, as jose refuses it', async () => {
  const { tokens, clock } = counted();
  const jwt = await tokens.sign(claims);
  assert.ok((await tokens.verify(jwt)).ok);
  clock.s = T0 + TOKEN_LIFETIME_S - 1;
  // (past the cache's TTL too here: verified again, and kept again until its exp)
  assert.ok((await tokens.verify(jwt)).ok, 'one second before exp');
  clock.s = T0 + TOKEN_LIFETIME_S;
  assert.equal(await tokens.verify(jwt), { ok: false, problem: 'expired' });
});

test('within the TTL a kept token still stops at its exp (the cache never outlives the token)', async () => {
  const { tokens, clock, verifications } = counted();
  clock.s = T0 - TOKEN_LIFETIME_S + 10; // signed so that it expires 10 s after T0
  const jwt = await tokens.sign(claims);
  clock.s = T0;
  assert.ok((await tokens.verify(jwt)).ok);
  clock.s = T0 + 9;
  assert.ok((await tokens.verify(jwt)).ok);
  assert.is(verifications(), 1, 'the second answer came from memory');
  clock.s = T0 + 10;
  assert.equal(await tokens.verify(jwt), { ok: false, problem: 'expired' });
});

test('after the TTL the token is verified again', async () => {
  const { tokens, clock, verifications } = counted();
  const jwt = await tokens.sign(claims);
  await tokens.verify(jwt);
  clock.s = T0 + TOKEN_CACHE_TTL_S - 1;
  await tokens.verify(jwt);
  assert.is(verifications(), 1);
  clock.s = T0 + TOKEN_CACHE_TTL_S;
  await tokens.verify(jwt);
  assert.is(verifications(), 2);
});

test('bounded: past maxEntries the oldest kept token is verified again', async () => {
  const { tokens, verifications } = counted();
  const jwts = await Promise.all([1, 2, 3, 4].map((userId) => tokens.sign({ ...claims, userId })));
  for (const jwt of jwts) await tokens.verify(jwt);
  assert.is(verifications(), 4);
  for (const jwt of jwts.slice(1)) await tokens.verify(jwt);
  assert.is(verifications(), 4, 'the three newest are kept');
  await tokens.verify(jwts[0]!);
  assert.is(verifications(), 5, 'the first was dropped');
});

test('a refused token is never kept: a forged one is checked (and refused) every time', async () => {
  const { tokens, verifications } = counted();
  const jwt = await tokens.sign(claims);
  const forged = `${jwt.slice(0, -4)}AAAA`;
  for (let i = 0; i < 3; i++) assert.equal(await tokens.verify(forged), { ok: false, problem: 'invalid' });
  assert.is(verifications(), 3);
  const other = await createTokenService({ secret: new Uint8Array(32).fill(4), nowS: () => T0 }).sign(claims);
  assert.equal(await tokens.verify(other), { ok: false, problem: 'invalid' }, 'another key\'s token');
});

test.run();
