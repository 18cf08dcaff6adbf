import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { resolveJwtSecret } from '../../api/auth/jwt-secret.js';
import { loadSettings } from '../../config/settings.js';
import { createTokenService, TOKEN_AUDIENCE, TOKEN_ISSUER } from '../../api/auth/tokens.js';

const secret = new Uint8Array(32).fill(1);
const now = 1_800_000_000;
const claims = { userId: 7, org: 'north', role: 'admin' as const, timeZone: 'America/Chicago' };

test('sign then verify gives the claims back; 24 h later it has expired', async () => {
  const jwt = await createTokenService({ secret, nowS: () => now }).sign(claims);
  assert.equal(await createTokenService({ secret, nowS: () => now + 86_399 }).verify(jwt), { ok: true, claims });
  assert.equal(await createTokenService({ secret, nowS: () => now + 86_401 }).verify(jwt), { ok: false, problem: 'expired' });
});

test('claims that do not fit are invalid even when the signature is good', async () => {
  const sign = (payload: Record<string, unknown>, sub = '7') =>
    new SignJWT(payload).setProtectedHeader({ alg: 'HS256' }).setSubject(sub).setIssuer(TOKEN_ISSUER).setAudience(TOKEN_AUDIENCE).setIssuedAt(now).setExpirationTime(now + 60).sign(secret);
  const tokens = createTokenService({ secret, nowS: () => now });
  const bad = [
    await sign({ org: 'north', role: 'root', tz: 'UTC' }),
    await sign({ org: 'north', role: 'admin', tz: 'Mars/Base' }),
    await sign({ org: '', role: 'admin', tz: 'UTC' }),
    await sign({ org: 'north', role: 'admin', tz: 'UTC' }, 'abc'),
    await sign({ role: 'admin', tz: 'UTC' }),
  ];
  for (const jwt of bad) assert.equal(await tokens.verify(jwt), { ok: false, problem: 'invalid' });
  assert.ok((await tokens.verify(await sign({ org: 'north', role: 'admin', tz: 'UTC' }))).ok, 'the same builder with good claims verifies');
});

test('a short secret is refused', () => {
  assert.throws(() => createTokenService({ secret: new Uint8Array(16) }), /32 bytes/);
});

test('JWT_SECRET wins; else a key is generated once under DATA_DIR with mode 0600 and reused', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fl-jwt-'));
  const configured = (env: Record<string, string>) => loadSettings(env).jwtSecret;
  const fromEnv = resolveJwtSecret({ configured: configured({ JWT_SECRET: 'x'.repeat(32) }), dataDir: dir });
  assert.equal([...fromEnv], [...new TextEncoder().encode('x'.repeat(32))]);
  assert.throws(() => loadSettings({ JWT_SECRET: 'short' }), /JWT_SECRET must be at least 32/);
  const first = resolveJwtSecret({ configured: configured({}), dataDir: dir });
  assert.is(first.length, 64);
  assert.is(statSync(join(dir, 'jwt-secret')).mode & 0o777, 0o600);
  assert.equal([...resolveJwtSecret({ configured: null, dataDir: dir })], [...first], 'the same key after a restart');
  writeFileSync(join(dir, 'jwt-secret'), 'abc\n');
  assert.throws(() => resolveJwtSecret({ configured: null, dataDir: dir }), /fewer than 32/);
  assert.ok(readFileSync(join(dir, 'jwt-secret'), 'utf8').length > 0);
});

test.run();
