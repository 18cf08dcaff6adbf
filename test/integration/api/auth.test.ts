// Login and bearer tokens against the real users table (imported from test/fixtures/import.json):
// the claims, the same answer for a wrong email and a wrong password, content-type / size / field errors,
// every token attack a 401, the admin guard a 403, and the login rate limit a 429 with Retry-After.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeJwt, SignJWT } from 'jose';
import type { Hono } from 'hono';
import { createApp } from '../../../api/app.js';
import { createTokenService, TOKEN_AUDIENCE, TOKEN_ISSUER } from '../../../api/auth/tokens.js';
import { JWT_SECRET, NOW, seededApi, USERS, type SeededApi } from './seeded-api.js';
import { json, type Json } from './paths.js';

const test = suite('auth');
let api: SeededApi;
test.before(async () => { api = await seededApi({ feed: false }); });
test.after(async () => { await api?.close(); });

const post = (app: Hono, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  app.request('/api/auth/login', { method: 'POST', headers, body });
const login = (app: Hono, email: string, password: string, headers?: Record<string, string>) =>
  post(app, JSON.stringify({ email, password }), { 'content-type': 'application/json', ...headers });
const PROTECTED = ['/device-records/map-data', '/api/device-records/all-devices', '/api/dnp3/dnp3OrganizationDevices'];
const nowS = Math.floor(NOW / 1000);

test('login answers a 24 h HS256 JWT with sub, org, role, tz, iss and aud', async () => {
  const res = await login(api.app, USERS.northEast.email, USERS.northEast.password);
  assert.is(res.status, 200);
  const body = await json(res);
  assert.equal(Object.keys(body), ['accessToken', 'maskFaultDetails']);
  assert.is(body.maskFaultDetails, false);
  assert.is((await json(await login(api.app, USERS.southAdmin.email, USERS.southAdmin.password))).maskFaultDetails, true, 'south masks');
  const claims = decodeJwt(body.accessToken as string);
  const { rows } = await api.db.pool.query<{ id: number }>(`select id from users where email = $1`, [USERS.northEast.email]);
  assert.equal(
    { sub: claims.sub, org: claims.org, role: claims.role, tz: claims.tz, iss: claims.iss, aud: claims.aud, life: claims.exp! - claims.iat! },
    { sub: String(rows[0]!.id), org: 'north', role: 'user', tz: 'America/Chicago', iss: TOKEN_ISSUER, aud: TOKEN_AUDIENCE, life: 24 * 3600 },
  );
  assert.is(claims.iat, nowS);
  assert.is(JSON.parse(Buffer.from((body.accessToken as string).split('.')[0]!, 'base64url').toString()).alg, 'HS256');
});

test('the email is case-insensitive; tz falls back to the organisation, then UTC', async () => {
  assert.is((await login(api.app, 'ADMIN@South.Example', USERS.southAdmin.password)).status, 200);
  await api.db.pool.query(`update users set timezone = null where email = $1`, [USERS.southAdmin.email]);
  const orgTz = decodeJwt((await json(await login(api.app, USERS.southAdmin.email, USERS.southAdmin.password))).accessToken as string);
  assert.is(orgTz.tz, 'Australia/Sydney');
  await api.db.pool.query(`update organizations set timezone = 'Not/AZone' where "OrganizationID" = 'south'`);
  const utc = decodeJwt((await json(await login(api.app, USERS.southAdmin.email, USERS.southAdmin.password))).accessToken as string);
  assert.is(utc.tz, 'UTC');
  await api.db.pool.query(`update organizations set timezone = 'Australia/Sydney' where "OrganizationID" = 'south'`);
  await api.db.pool.query(`update users set timezone = 'Australia/Sydney' where email = $1`, [USERS.southAdmin.email]);
});

test('a wrong email and a wrong password give the same answer in a similar time', async () => {
  const wrongPassword = await login(api.app, USERS.northAdmin.email, 'not-the-password');
  const wrongEmail = await login(api.app, 'nobody@north.example', 'not-the-password');
  assert.is(wrongPassword.status, 401);
  assert.is(wrongEmail.status, 401);
  assert.equal(await wrongPassword.json(), await wrongEmail.json());
  const time = async (email: string) => {
    const t0 = performance.now();
    await login(api.app, email, 'not-the-password');
    return performance.now() - t0;
  };
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const known: number[] = [];
  const unknown: number[] = [];
  for (let i = 0; i < 5; i++) {
    known.push(await time(`admin@south.example`));
    unknown.push(await time(`nobody${i}@south.example`));
  }
  const ratio = median(unknown) / median(known);
  // without the dummy hash an unknown email would answer in ~1 ms against ~70 ms for scrypt
  assert.ok(ratio > 0.5 && ratio < 2, `unknown/known time ratio ${ratio.toFixed(2)}`);
});

test('a soft-deleted user cannot log in, and the token it had stops working once the account cache (5 s) expires', async () => {
  let clock = NOW;
  const app = createApp({ readiness: {}, pool: api.db.pool, jwtSecret: JWT_SECRET, now: () => clock });
  const token = (await json(await login(app, USERS.southEast.email, USERS.southEast.password))).accessToken as string;
  const read = () => app.request('/device-records/map-data', { headers: { authorization: `Bearer ${token}` } });
  assert.is((await read()).status, 200);
  await api.db.pool.query(`update users set deleted_at = now() where email = $1`, [USERS.southEast.email]);
  try {
    assert.is((await login(app, USERS.southEast.email, USERS.southEast.password)).status, 401);
    clock += 4_000;
    assert.is((await read()).status, 200, 'still inside the cache time');
    clock += 1_001;
    const res = await read();
    assert.is(res.status, 401);
    assert.is((((await json(res)).error as Json).details as Json).reason, 'stale');
  } finally {
    await api.db.pool.query(`update users set deleted_at = null where email = $1`, [USERS.southEast.email]);
  }
});

test('accountCacheMs 0 reads the account on every request: a revoked admin is refused at once', async () => {
  const app = createApp({ readiness: {}, pool: api.db.pool, jwtSecret: JWT_SECRET, now: () => NOW, accountCacheMs: 0 });
  const token = (await json(await login(app, USERS.southAdmin.email, USERS.southAdmin.password))).accessToken as string;
  const read = () => app.request('/api/dnp3/dnp3OrganizationDevices', { headers: { authorization: `Bearer ${token}` } });
  assert.is((await read()).status, 200);
  await api.db.pool.query(`update users set role = 'user' where email = $1`, [USERS.southAdmin.email]);
  try {
    assert.is((await read()).status, 401);
  } finally {
    await api.db.pool.query(`update users set role = 'admin' where email = $1`, [USERS.southAdmin.email]);
  }
});

test('a token the cache keeps (api/auth/token-cache.ts) is refused at once when its user is deleted, and at its expiry', async () => {
  let clock = NOW;
  const app = createApp({ readiness: {}, pool: api.db.pool, jwtSecret: JWT_SECRET, now: () => clock, accountCacheMs: 0 });
  const token = (await json(await login(app, USERS.southEast.email, USERS.southEast.password))).accessToken as string;
  const read = () => app.request('/device-records/map-data', { headers: { authorization: `Bearer ${token}` } });
  const reason = async (res: Response) => (((await json(res)).error as Json).details as Json).reason;
  assert.is((await read()).status, 200);
  assert.is((await read()).status, 200, 'answered again: the token is kept');
  await api.db.pool.query(`update users set deleted_at = now() where email = $1`, [USERS.southEast.email]);
  try {
    const res = await read();
    assert.is(res.status, 401, 'deleted: refused on the next request');
    assert.is(await reason(res), 'stale');
  } finally {
    await api.db.pool.query(`update users set deleted_at = null where email = $1`, [USERS.southEast.email]);
  }
  const exp = decodeJwt(token).exp!;
  clock = exp * 1000 - 1000;
  assert.is((await read()).status, 200, 'one second before exp');
  clock = exp * 1000;
  const expired = await read();
  assert.is(expired.status, 401, 'at exp');
  assert.is(await reason(expired), 'expired');
});

test('login body errors: 415 not JSON, 413 too large, 400 naming the bad field', async () => {
  const cases: [string, Record<string, string>, number, string, string?][] = [
    [JSON.stringify(USERS.northAdmin), { 'content-type': 'text/plain' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    [JSON.stringify(USERS.northAdmin), {}, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['email=a&password=b', { 'content-type': 'application/x-www-form-urlencoded' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    [JSON.stringify({ ...USERS.northAdmin, pad: 'x'.repeat(5000) }), { 'content-type': 'application/json' }, 413, 'PAYLOAD_TOO_LARGE'],
    ['{"email":', { 'content-type': 'application/json' }, 400, 'INVALID_BODY', 'body'],
    ['[]', { 'content-type': 'application/json' }, 400, 'INVALID_BODY', 'body'],
    [JSON.stringify({ password: 'x' }), { 'content-type': 'application/json' }, 400, 'INVALID_BODY', 'email'],
    [JSON.stringify({ email: 'a@b.c' }), { 'content-type': 'application/json; charset=utf-8' }, 400, 'INVALID_BODY', 'password'],
    [JSON.stringify({ email: 'a@b.c', password: 12 }), { 'content-type': 'application/json' }, 400, 'INVALID_BODY', 'password'],
    [JSON.stringify({ email: '', password: 'x' }), { 'content-type': 'application/json' }, 400, 'INVALID_BODY', 'email'],
    [JSON.stringify({ email: 'a\u0000@b.c', password: 'x' }), { 'content-type': 'application/json' }, 400, 'INVALID_BODY', 'email'],
  ];
  for (const [body, headers, status, code, field] of cases) {
    const res = await post(api.app, body, headers);
    const error = (await json(res)).error as Json;
    assert.is(res.status, status, `${body.slice(0, 40)} ${JSON.stringify(headers)}`);
    assert.is(error.code, code);
    if (field) {
      assert.is((error.details as Json).field, field);
      if (field !== 'body') assert.match(String(error.message), `"${field}"`);
    }
  }
});

async function tokenAttacks(): Promise<[string, string | null][]> {
  const { rows } = await api.db.pool.query<{ id: number }>(`select id from users where email = $1`, [USERS.northEast.email]);
  const claims = { userId: rows[0]!.id, org: 'north', role: 'user' as const, timeZone: 'America/Chicago' };
  const good = await createTokenService({ secret: JWT_SECRET, nowS: () => nowS }).sign(claims);
  const [h, p, s] = good.split('.') as [string, string, string];
  const payload = JSON.parse(Buffer.from(p, 'base64url').toString()) as Json;
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const custom = (edit: (j: SignJWT) => SignJWT, alg = 'HS256', secret = JWT_SECRET) =>
    edit(new SignJWT({ org: 'north', role: 'user', tz: 'America/Chicago' }).setProtectedHeader({ alg }).setSubject(String(claims.userId)).setIssuedAt(nowS).setExpirationTime(nowS + 3600)).sign(secret);
  return [
    ['no header', null],
    ['Basic scheme', `Basic ${Buffer.from('a:b').toString('base64')}`],
    ['not a JWT', 'Bearer not-a-token'],
    ['empty bearer', 'Bearer '],
    ['expired', `Bearer ${await createTokenService({ secret: JWT_SECRET, nowS: () => nowS - 2 * 86400 }).sign(claims)}`],
    ['forged payload (role admin), old signature', `Bearer ${h}.${b64({ ...payload, role: 'admin' })}.${s}`],
    ['alg none', `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${p}.`],
    ['alg none with the old signature', `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${p}.${s}`],
    ['wrong key', `Bearer ${await createTokenService({ secret: new TextEncoder().encode('another-secret-that-is-32-bytes-long!!'), nowS: () => nowS }).sign(claims)}`],
    ['wrong audience', `Bearer ${await custom((j) => j.setIssuer(TOKEN_ISSUER).setAudience('someone-else'))}`],
    ['wrong issuer', `Bearer ${await custom((j) => j.setIssuer('evil').setAudience(TOKEN_AUDIENCE))}`],
    ['no audience', `Bearer ${await custom((j) => j.setIssuer(TOKEN_ISSUER))}`],
    ['HS512 with the right key', `Bearer ${await custom((j) => j.setIssuer(TOKEN_ISSUER).setAudience(TOKEN_AUDIENCE), 'HS512')}`],
    ['another user\'s id', `Bearer ${await createTokenService({ secret: JWT_SECRET, nowS: () => nowS }).sign({ ...claims, userId: 999999 })}`],
    ['org claim of another organisation', `Bearer ${await createTokenService({ secret: JWT_SECRET, nowS: () => nowS }).sign({ ...claims, org: 'south' })}`],
    ['role claim raised to admin', `Bearer ${await createTokenService({ secret: JWT_SECRET, nowS: () => nowS }).sign({ ...claims, role: 'admin' })}`],
  ];
}

test('token attacks are 401 on every kind of protected route, with WWW-Authenticate', async () => {
  for (const [name, header] of await tokenAttacks()) {
    for (const path of PROTECTED) {
      const res = await api.app.request(path, { headers: header === null ? {} : { authorization: header } });
      assert.is(res.status, 401, `${name} ${path}`);
      assert.is(((await json(res)).error as Json).code, 'UNAUTHENTICATED', name);
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/, name);
    }
  }
});

test('the untouched token of the same user works (so the attacks above fail for their flaw only)', async () => {
  const { rows } = await api.db.pool.query<{ id: number }>(`select id from users where email = $1`, [USERS.northEast.email]);
  const token = await createTokenService({ secret: JWT_SECRET, nowS: () => nowS }).sign({ userId: rows[0]!.id, org: 'north', role: 'user', timeZone: 'America/Chicago' });
  const res = await api.app.request('/device-records/map-data', { headers: { authorization: `bearer ${token}` } });
  assert.is(res.status, 200);
});

test('admin guard: a user gets 403 on dnp3OrganizationDevices, admins 200', async () => {
  const res = await api.get('/api/dnp3/dnp3OrganizationDevices', 'northEast');
  assert.is(res.status, 403);
  assert.is(((await json(res)).error as Json).code, 'FORBIDDEN');
  assert.is((await api.get('/api/dnp3/dnp3OrganizationDevices', 'southEast')).status, 403);
  assert.is((await api.get('/api/dnp3/dnp3OrganizationDevices', 'northAdmin')).status, 200);
  assert.is((await api.get('/api/dnp3/dnp3OrganizationDevices', 'southAdmin')).status, 200);
});

test('login rate limit per email: 429 with Retry-After, even for the right password; the window slides', async () => {
  let clock = NOW;
  const app = createApp({ readiness: {}, pool: api.db.pool, jwtSecret: JWT_SECRET, now: () => clock, loginLimits: { perEmail: { max: 3, windowMs: 60_000 } } });
  for (let i = 0; i < 3; i++) assert.is((await login(app, USERS.northAdmin.email, 'wrong')).status, 401);
  const limited = await login(app, USERS.northAdmin.email.toUpperCase(), USERS.northAdmin.password);
  assert.is(limited.status, 429);
  assert.is(limited.headers.get('retry-after'), '60');
  assert.is(((await json(limited)).error as Json).code, 'RATE_LIMITED');
  assert.is((await login(app, USERS.northEast.email, USERS.northEast.password)).status, 200, 'another email is not limited');
  clock += 30_000;
  assert.is((await login(app, USERS.northAdmin.email, USERS.northAdmin.password)).headers.get('retry-after'), '30');
  clock += 30_001;
  assert.is((await login(app, USERS.northAdmin.email, USERS.northAdmin.password)).status, 200, 'the window has passed');
});

test('login rate limit per client address: many emails from one address are limited, another address is not', async () => {
  const app = createApp({
    readiness: {}, pool: api.db.pool, jwtSecret: JWT_SECRET, now: () => NOW,
    loginLimits: { perEmail: { max: 100, windowMs: 60_000 }, perAddress: { max: 4, windowMs: 60_000 } },
    clientAddress: (c) => c.req.header('x-test-client') ?? 'none',
  });
  for (let i = 0; i < 4; i++) assert.is((await login(app, `guess${i}@north.example`, 'x', { 'x-test-client': '10.0.0.1' })).status, 401);
  const limited = await login(app, USERS.northAdmin.email, USERS.northAdmin.password, { 'x-test-client': '10.0.0.1' });
  assert.is(limited.status, 429);
  assert.ok(Number(limited.headers.get('retry-after')) > 0);
  assert.is((await login(app, USERS.northAdmin.email, USERS.northAdmin.password, { 'x-test-client': '10.0.0.2' })).status, 200);
});

test.run();
