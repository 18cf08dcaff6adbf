// API attacks (issue 7, part 4) on the app over a database filled by the real stages (seeded-api.ts):
// forged, expired, alg:none, wrong-key, wrong-algorithm and cross-organisation JWTs; IMEI enumeration across
// organisations and groups (same answer as "does not exist"); SQL injection in every query parameter of every
// list path, including sortBy and filterBy; oversized and malformed login bodies; login brute force. Each is
// refused with the right status and no data; no answer carries a stack, SQL or a fixture secret.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeJwt, SignJWT } from 'jose';
import { TOKEN_AUDIENCE, TOKEN_ISSUER } from '../../api/auth/tokens.js';
import { NOW, JWT_SECRET, seededApi, USERS, type SeededApi, type UserName } from '../integration/api/seeded-api.js';
import { imeiPaths, listPaths } from '../integration/api/paths.js';
import { reportTally } from '../helpers/tally.js';
import { Capture, findSecrets } from './secrets.js';

let api: SeededApi;
const seen = new Capture();
let tried = 0;
let refused = 0;
const nowS = Math.floor(NOW / 1000);

test.before(async () => {
  // The client address comes from a test header, so the per-address limit can be reached in-process.
  api = await seededApi({ app: { clientAddress: (c) => c.req.header('x-test-address') ?? '192.0.2.1', accountCacheMs: 0 } });
});
test.after(async () => {
  await api?.close();
  reportTally('api-attacks', { attacksTried: tried, attacksRefused: refused });
});

const SQL_OR_STACK = /\bselect\b.+\bfrom\b|syntax error|relation "|column "|\bat .+\.(ts|js):\d+|node_modules|pg-protocol|Error: /i;

/** One attack: the answer must have `status`, an error body with `code` (when given) and nothing else. */
async function attack(label: string, res: Response, status: number, code?: string): Promise<Record<string, unknown> | null> {
  tried++;
  const text = await res.text();
  seen.add(label, `${res.status} ${text}`);
  assert.is(res.status, status, `${label}: status (${text.slice(0, 300)})`);
  assert.not.match(text, SQL_OR_STACK, `${label}: no SQL or stack in the answer`);
  let body: Record<string, unknown> | null = null;
  try { body = JSON.parse(text) as Record<string, unknown>; } catch { /* not JSON */ }
  if (status >= 400) {
    assert.ok(body && typeof body.error === 'object', `${label}: an error body`);
    const error = body!.error as { code: string; message: string };
    if (code) assert.is(error.code, code, `${label}: code`);
    assert.ok(error.message.length > 0, `${label}: a message`);
    assert.equal(Object.keys(body!), ['error'], `${label}: no data beside the error`);
  }
  refused++;
  return body;
}

const ADMIN_PATHS = ['/api/dnp3/dnp3OrganizationDevices', '/api/dnp3/pointMap', '/api/dnp3/deviceProfile', '/api/iec104/pointMap', '/api/iec104/interoperability'];
const PROTECTED = [...listPaths(), ...imeiPaths('861000000000000').slice(0, 4), ...ADMIN_PATHS];
const get = (path: string, token: string | null, headers: Record<string, string> = {}) =>
  api.app.request(path, { headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...headers } });
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

async function signed(claims: Record<string, unknown>, { key = JWT_SECRET, alg = 'HS256', iat = nowS, exp = nowS + 3600 as number | null } = {}): Promise<string> {
  let jwt = new SignJWT(claims).setProtectedHeader({ alg }).setIssuer(TOKEN_ISSUER).setAudience(TOKEN_AUDIENCE).setIssuedAt(iat);
  if (exp !== null) jwt = jwt.setExpirationTime(exp);
  return jwt.sign(key);
}

test('token attacks on every protected path: each a 401, no data', async () => {
  const real = api.tokens.northAdmin;
  const claims = decodeJwt(real);
  const [h, p, s] = real.split('.') as [string, string, string];
  const base = { sub: claims.sub, org: claims.org, role: claims.role, tz: claims.tz };
  const tokens: Record<string, string> = {
    'forged payload (role and org changed, old signature)': `${h}.${b64({ ...claims, org: 'south', role: 'admin' })}.${s}`,
    'forged signature': `${h}.${p}.${s.slice(0, -4)}${s.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`,
    'signature removed': `${h}.${p}.`,
    'alg none': `${b64({ alg: 'none', typ: 'JWT' })}.${p}.`,
    'alg None with signature': `${b64({ alg: 'None' })}.${p}.${s}`,
    expired: await signed(base, { iat: nowS - 2 * 86400, exp: nowS - 86400 }),
    'no expiry': await signed(base, { exp: null }),
    'wrong key': await signed(base, { key: new TextEncoder().encode('another-secret-of-at-least-32-bytes!!!!') }),
    'HS512 with the right key': await signed(base, { alg: 'HS512' }),
    'wrong issuer': await new SignJWT(base).setProtectedHeader({ alg: 'HS256' }).setIssuer('evil').setAudience(TOKEN_AUDIENCE).setIssuedAt(nowS).setExpirationTime(nowS + 60).sign(JWT_SECRET),
    'wrong audience': await new SignJWT(base).setProtectedHeader({ alg: 'HS256' }).setIssuer(TOKEN_ISSUER).setAudience('other').setIssuedAt(nowS).setExpirationTime(nowS + 60).sign(JWT_SECRET),
    'not yet valid': await new SignJWT(base).setProtectedHeader({ alg: 'HS256' }).setIssuer(TOKEN_ISSUER).setAudience(TOKEN_AUDIENCE).setIssuedAt(nowS).setNotBefore(nowS + 3600).setExpirationTime(nowS + 7200).sign(JWT_SECRET),
    'cross-organisation claim (north user, org south)': await signed({ ...base, org: 'south' }),
    'elevated role claim (north user, role admin)': await signed({ ...decodeJwt(api.tokens.northEast), iss: undefined, aud: undefined, iat: undefined, exp: undefined, role: 'admin' }),
    'unknown user': await signed({ ...base, sub: '999999' }),
    'sub injection': await signed({ ...base, sub: "1 or 1=1" }),
    garbage: 'not.a.token',
  };
  for (const path of PROTECTED) {
    for (const [label, token] of Object.entries(tokens)) await attack(`${label} ${path}`, await get(path, token), 401, 'UNAUTHENTICATED');
    await attack(`no token ${path}`, await get(path, null), 401, 'UNAUTHENTICATED');
    await attack(`basic auth ${path}`, await get(path, null, { authorization: `Basic ${Buffer.from('admin@north.example:north-Admin-Pass-1').toString('base64')}` }), 401, 'UNAUTHENTICATED');
    await attack(`token in query ${path}`, await get(`${path}${path.includes('?') ? '&' : '?'}access_token=${real}`, null), 401, 'UNAUTHENTICATED');
  }
  // A user's role guard: a legitimate non-admin token on admin endpoints.
  for (const path of ADMIN_PATHS) await attack(`user on admin path ${path}`, await get(path, api.tokens.northEast), 403, 'FORBIDDEN');
});

test('IMEI enumeration: another organisation\'s or group\'s device answers exactly like one that does not exist', async () => {
  const cases: { user: UserName; hidden: string[] }[] = [
    { user: 'northEast', hidden: ['861000000000400', '861000000000700', '861100000000000', '861100000000500'] },
    { user: 'northAdmin', hidden: ['861100000000000', '861100000000700', '861000000000700'] },
    { user: 'southEast', hidden: ['861100000000400', '861000000000000', '861000000000600'] },
    { user: 'southAdmin', hidden: ['861000000000000', '861000000000500'] },
  ];
  const nonexistent = ['869999999999999', '861000000000099', '861100000000999'];
  const normalise = (text: string, imei: string) => text.split(imei).join('<IMEI>');
  for (const { user, hidden } of cases) {
    const token = api.tokens[user];
    for (const [i, path] of imeiPaths('<IMEI>').entries()) {
      const reference = await get(path.replace('<IMEI>', nonexistent[i % nonexistent.length]!), token);
      const refText = normalise(await reference.text(), nonexistent[i % nonexistent.length]!);
      assert.is(reference.status, 404);
      for (const imei of hidden) {
        const res = await get(path.replace('<IMEI>', imei), token);
        tried++;
        const text = await res.text();
        seen.add(`enum ${user} ${imei}`, text);
        assert.is(res.status, 404, `${user} ${path} ${imei}`);
        assert.is(normalise(text, imei), refText, `${user} ${path} ${imei}: same body as a device that does not exist`);
        assert.equal([...res.headers.keys()].sort(), [...reference.headers.keys()].sort(), 'same headers');
        refused++;
      }
    }
    // Through the list filters: another organisation's IMEI finds nothing, like an unknown one.
    for (const imei of hidden) {
      for (const path of ['/api/device-records/all-devices', '/api/device-records/data-log', '/api/device-records/map-data', '/api/device-records/critical-data']) {
        const q = `${path}?filterBy=${encodeURIComponent(JSON.stringify({ IMEINumber: imei }))}`;
        const res = await get(q, token);
        tried++;
        const text = await res.text();
        seen.add(`enum-filter ${user} ${q}`, text);
        if (res.status === 400) { assert.match(text, /BAD_PARAMETER/); refused++; continue; }
        assert.is(res.status, 200, `${user} ${q}: ${text.slice(0, 200)}`);
        assert.not.ok(text.includes(imei), `${user} ${q}: the hidden IMEI does not appear`);
        const body = JSON.parse(text) as { data: unknown[]; total?: number };
        assert.is(body.data.length, 0, `${user} ${q}: no rows`);
        if (body.total !== undefined) assert.is(body.total, 0);
        refused++;
      }
    }
  }
});

/** An error may quote the offending value back (JSON-escaped); only what the server adds is checked. */
const withoutEcho = (text: string, payload: string) => [payload, JSON.stringify(payload).slice(1, -1), JSON.stringify(JSON.stringify(payload).slice(1, -1)).slice(1, -1), encodeURIComponent(payload)]
  .reduce((t, p) => t.split(p).join('<PAYLOAD>'), text);

const INJECTIONS = [
  "' OR '1'='1", "1 OR 1=1", "1; DROP TABLE users; --", "0) UNION SELECT password_hash FROM users --", "\\'; select pg_sleep(5); --",
  '"; delete from device_records; --', '%27%20OR%201%3D1', '1e309', '-1', '99999999999999999999', '\u0000', 'date desc; drop table users',
];

test('SQL injection in every query parameter of every list path: a 400 naming the parameter, or no foreign rows', async () => {
  const token = api.tokens.northEast;
  const usersBefore = (await api.db.pool.query('select count(*) from users')).rows[0].count as string;
  // The filterable and sortable fields of each path, from the refusal of an unknown one.
  for (const path of listPaths()) {
    const probe = await get(`${path}?filterBy=${encodeURIComponent('{"nope":1}')}`, token);
    const probeBody = await probe.json() as { error: { code: string; details?: { allowed?: string[] } } };
    const accepts = probe.status === 400 && probeBody.error.code === 'BAD_PARAMETER';
    const filterable = accepts ? probeBody.error.details?.allowed ?? [] : [];
    const textField = filterable.find((f) => /IMEI|Name|name|model|Program/.test(f));
    for (const payload of INJECTIONS) {
      const e = encodeURIComponent(payload);
      const queries: string[] = [`page=${e}`, `limit=${e}`, `from=${e}`, `to=${e}`, `sortBy=${e}`, `filterBy=${e}`,
        `sortBy=${encodeURIComponent(JSON.stringify({ field: payload, order: 'asc' }))}`,
        `sortBy=${encodeURIComponent(JSON.stringify({ field: 'date', order: payload }))}`,
        `filterBy=${encodeURIComponent(JSON.stringify({ [payload]: 1 }))}`,
        `filterBy[${e}]=1`, `filterBy[date][${e}]=1`, `${e}=1`];
      if (textField) {
        queries.push(`filterBy=${encodeURIComponent(JSON.stringify({ [textField]: payload }))}`, `filterBy=${encodeURIComponent(JSON.stringify({ [textField]: { contains: payload } }))}`,
          `filterBy=${encodeURIComponent(JSON.stringify({ [textField]: { in: [payload, "x') or ('1'='1"] } }))}`, `filterBy[${textField}][eq]=${e}`);
      }
      for (const q of queries) {
        const res = await get(`${path}?${q}`, token);
        tried++;
        const text = await res.text();
        seen.add(`sqli ${path}?${q}`, `${res.status} ${text}`);
        assert.ok(res.status === 400 || res.status === 200, `${path}?${q}: 400 or an empty 200, got ${res.status} ${text.slice(0, 300)}`);
        assert.not.match(withoutEcho(text, payload), SQL_OR_STACK, `${path}?${q}: no SQL or stack`);
        if (res.status === 400) {
          const err = (JSON.parse(text) as { error: { code: string; message: string } }).error;
          assert.ok(['BAD_PARAMETER', 'UNKNOWN_PARAMETER'].includes(err.code), `${path}?${q}: ${err.code}`);
        } else {
          // Accepted only as a plain value (a filter on a text field): it matches no row.
          const body = JSON.parse(text) as { data?: unknown[]; total?: number; totalDevices?: number };
          const empty = Array.isArray(body.data) ? body.data.length === 0 : body.totalDevices === 0; // device-summary counts
          assert.ok(empty, `${path}?${q}: an injected value matches nothing (${text.slice(0, 200)})`);
        }
        refused++;
      }
    }
  }
  // The IMEI path parameter.
  for (const payload of INJECTIONS) {
    for (const path of imeiPaths(encodeURIComponent(payload))) {
      const res = await get(path, token);
      tried++;
      const text = await res.text();
      seen.add(`sqli ${path}`, text);
      assert.ok(res.status === 404 || res.status === 400, `${path}: ${res.status}`);
      assert.not.match(withoutEcho(text, payload), SQL_OR_STACK);
      refused++;
    }
  }
  assert.is((await api.db.pool.query('select count(*) from users')).rows[0].count, usersBefore, 'users table intact');
  assert.ok(Number((await api.db.pool.query('select count(*) from device_records')).rows[0].count) > 0, 'device records intact');
});

const login = (body: string | Uint8Array, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  api.app.request('/api/auth/login', { method: 'POST', headers: { 'x-test-address': '198.51.100.7', ...headers }, body });

test('oversized and malformed login bodies: 413, 415 or 400 naming the problem', async () => {
  await attack('2 MB body', await login(JSON.stringify({ email: 'a@b.c', password: 'x'.repeat(2 * 1024 * 1024) })), 413, 'PAYLOAD_TOO_LARGE');
  await attack('20 MB body', await login('{"email":"' + 'e'.repeat(20 * 1024 * 1024) + '"}'), 413, 'PAYLOAD_TOO_LARGE');
  for (const [label, body] of [['truncated JSON', '{"email": "admin@north.example", "pass'], ['not JSON', 'email=admin&password=x'], ['array', '[1,2]'], ['null', 'null'],
    ['email object', JSON.stringify({ email: { $ne: null }, password: 'x' })], ['password array', JSON.stringify({ email: 'admin@north.example', password: ['a'] })],
    ['missing password', JSON.stringify({ email: 'admin@north.example' })], ['deep nesting', '{"email":' + '['.repeat(1_500) + ']'.repeat(1_500) + '}'],
    ['proto key', '{"__proto__":{"email":"admin@north.example","password":"north-Admin-Pass-1"}}'], ['empty', '']] as const) {
    await attack(`login ${label}`, await login(body), 400, 'INVALID_BODY');
  }
  await attack('login text/plain', await login(JSON.stringify(USERS.northEast), { 'content-type': 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  await attack('login no content type', await login(JSON.stringify(USERS.northEast), {}), 415, 'UNSUPPORTED_MEDIA_TYPE');
  await attack('login SQL in email', await login(JSON.stringify({ email: "admin@north.example' or '1'='1", password: "' or '1'='1" })), 401, 'INVALID_CREDENTIALS');
});

test('login brute force: after 10 failures for one email a 429 with Retry-After, even for the right password; other users unaffected', async () => {
  const victim = USERS.southEast;
  let limited = 0;
  for (let i = 0; i < 14; i++) {
    const res = await login(JSON.stringify({ email: victim.email, password: `guess-${i}` }), { 'content-type': 'application/json', 'x-test-address': `203.0.113.${i}` });
    if (i < 10) await attack(`guess ${i}`, res, 401, 'INVALID_CREDENTIALS');
    else { await attack(`guess ${i}`, res, 429, 'RATE_LIMITED'); assert.ok(Number(res.headers.get('retry-after')) > 0, 'Retry-After'); limited++; }
  }
  assert.is(limited, 4);
  await attack('right password while limited', await login(JSON.stringify(victim), { 'content-type': 'application/json', 'x-test-address': '203.0.113.99' }), 429, 'RATE_LIMITED');
  // One address spraying many emails: 50 failures, then refused.
  let sprayLimited = 0;
  for (let i = 0; i < 55; i++) {
    const res = await login(JSON.stringify({ email: `user${i}@north.example`, password: 'Winter2026!' }), { 'content-type': 'application/json', 'x-test-address': '203.0.113.250' });
    tried++;
    seen.add(`spray ${i}`, await res.text());
    if (res.status === 429) sprayLimited++;
    refused += res.status === 401 || res.status === 429 ? 1 : 0;
  }
  assert.is(sprayLimited, 5, 'the 51st to 55th attempts from one address are refused');
  // Everyone else still logs in.
  const ok = await login(JSON.stringify(USERS.northEast), { 'content-type': 'application/json', 'x-test-address': '192.0.2.55' });
  assert.is(ok.status, 200);
});

test('no answer carried a stack, SQL or a fixture secret', () => {
  assert.ok(seen.count >= tried - 10);
  assert.equal(findSecrets(seen.text()), [], 'no fixture password in any answer');
});

test.run();
