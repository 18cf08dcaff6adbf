// Integration keys (issue 41 finding 9, point 7; docs/decisions.md#integration-keys-and-the-mask) against the
// running API over real Postgres: an organisation admin creates, lists, rotates and revokes them; only a hash
// is stored and the list never returns a key; in a masked organisation a key reads the SCADA integration
// outputs unmasked while the admin's password login reads them masked, and so its admins may not mint one
// (create or rotate: 403) — the operator does, with `faultline integration-keys` (run here as a command);
// revoked, rotated-away, unknown and malformed keys are a 401 naming the problem, logged without key material;
// a key reads nothing else and manages no keys; failed keys fill the client address's login window (429).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { log } from '../../config/log.js';
import { createApp } from '../../api/app.js';
import { integrationOutputPaths } from '../../api/auth/require-auth.js';
import { INTEGRATION_KEYS_PATH } from '../../api/integration-keys/routes.js';
import { listen, type Listening } from '../../api/server.js';
import { integrationSecretHash, parseIntegrationKey } from '../../secrets/integration-key.js';
import { addIec104Integration, JWT_SECRET, NOW, seededApi, type SeededApi, type UserName } from '../integration/api/seeded-api.js';
import { classWordsIn } from '../integration/masking/every-class.js';
import { reportTally } from '../helpers/tally.js';

let api: SeededApi;
let server: Listening;
let tried = 0;
let refused = 0;
/** The routes that say they are an integration output (their route option), walked from the app. */
let UNMASKED_INTEGRATION_PATHS: string[] = [];
const logged: string[] = [];
const keysSeen: string[] = [];

test.before(async () => {
  api = await seededApi({ app: { accountCacheMs: 0 } });
  await addIec104Integration(api.db, 'north');
  // The client address from a test header, so one suite can fill an address's window without touching the others.
  const app = createApp({ readiness: {}, pool: api.db.pool, jwtSecret: JWT_SECRET, portalDir: null, accountCacheMs: 0, now: () => NOW, clientAddress: (c) => c.req.header('x-test-address') ?? '192.0.2.1' });
  UNMASKED_INTEGRATION_PATHS = integrationOutputPaths(app);
  server = await listen(app, { port: 0, hostname: '127.0.0.1' });
  // Every line the product logs at info (the refusals among them) is kept for the no-key-material check.
  const info = log.info.bind(log);
  log.info = ((...args: Parameters<typeof info>) => { logged.push(JSON.stringify(args)); return info(...args); }) as typeof log.info;
});
test.after(async () => {
  await server?.close();
  await api?.close();
  reportTally('integration-keys', { attacksTried: tried, attacksRefused: refused });
});

interface Call { method?: string; user?: UserName; key?: string; body?: unknown; address?: string }
async function call(path: string, { method = 'GET', user, key, body, address }: Call = {}): Promise<{ status: number; text: string; json: any; headers: Headers }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const headers: Record<string, string> = {};
  if (user) headers.authorization = `Bearer ${api.tokens[user]}`;
  if (key) headers.authorization = `Bearer ${key}`;
  if (address) headers['x-test-address'] = address;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`http://127.0.0.1:${server.port}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  let json: unknown = null;
  try { json = JSON.parse(text); } catch { /* CSV, XML */ }
  return { status: res.status, text, json, headers: res.headers };
}

const setMasked = (org: string, masked: boolean) => api.db.pool.query('update organizations set "MaskFaultDetails" = $2 where "OrganizationID" = $1', [org, masked]);

/** One refused attempt: the status, the error code and the reason it names. */
async function refusedWith(label: string, r: Promise<Awaited<ReturnType<typeof call>>>, status: number, code: string, reason?: string): Promise<void> {
  tried++;
  const res = await r;
  assert.is(res.status, status, `${label}: ${res.text.slice(0, 200)}`);
  assert.is(res.json?.error?.code, code, label);
  if (reason) assert.is(res.json.error.details?.reason, reason, label);
  assert.equal(Object.keys(res.json), ['error'], `${label}: nothing beside the error`);
  refused++;
}

test('lifecycle: an admin creates a key (shown once), lists it (never the key), rotates it (the old one stops), revokes it', async () => {
  const created = await call(INTEGRATION_KEYS_PATH, { method: 'POST', user: 'northAdmin', body: { name: 'SCADA master A' } });
  assert.is(created.status, 201, created.text);
  assert.is(created.headers.get('cache-control'), 'no-store');
  const key = created.json.key as string;
  keysSeen.push(key);
  assert.match(key, /^flk_[0-9a-f]{16}_[0-9a-f]{64}$/);
  assert.equal({ ...created.json, key: undefined, createdAt: undefined }, { id: key.slice(4, 20), name: 'SCADA master A', role: 'integration', createdBy: 'admin@north.example', rotatedAt: null, lastUsedAt: null, revokedAt: null, key: undefined, createdAt: undefined });
  const id = created.json.id as string;

  // Stored: the SHA-256 of the secret, not the key nor the secret.
  const { rows: [row] } = await api.db.pool.query<{ secret_sha256: Buffer; all: string }>('select secret_sha256, row_to_json(k)::text as all from integration_keys k where id = $1', [id]);
  assert.ok(row!.secret_sha256.equals(integrationSecretHash(parseIntegrationKey(key)!.secret)), 'the hash of the secret is stored');
  assert.not.ok(row!.all.includes(parseIntegrationKey(key)!.secret), 'the secret is not in the row');

  // It works, and its use is recorded.
  assert.is((await call(UNMASKED_INTEGRATION_PATHS[0]!, { key })).status, 200);
  const listed = await call(INTEGRATION_KEYS_PATH, { user: 'northAdmin' });
  assert.is(listed.status, 200);
  assert.equal(listed.json.data.map((k: { id: string }) => k.id), [id]);
  assert.ok(listed.json.data[0].lastUsedAt, 'last use recorded');
  assert.not.ok(listed.text.includes(parseIntegrationKey(key)!.secret), 'the list never holds the key');
  assert.not.ok('key' in listed.json.data[0], 'no key field in the list');
  assert.equal((await call(INTEGRATION_KEYS_PATH, { user: 'southAdmin' })).json.data, [], 'another organisation sees none of them');

  // Rotation: a new secret for the same id; the old key is refused, the new one works.
  const rotated = await call(`${INTEGRATION_KEYS_PATH}/${id}/rotate`, { method: 'POST', user: 'northAdmin' });
  assert.is(rotated.status, 200, rotated.text);
  const newKey = rotated.json.key as string;
  keysSeen.push(newKey);
  assert.is(rotated.json.id, id);
  assert.ok(rotated.json.rotatedAt);
  assert.is.not(newKey, key);
  await refusedWith('the key before rotation', call(UNMASKED_INTEGRATION_PATHS[0]!, { key }), 401, 'UNAUTHENTICATED', 'unknown-key');
  assert.is((await call(UNMASKED_INTEGRATION_PATHS[0]!, { key: newKey })).status, 200);

  // Revocation: refused from the next request, named as revoked; still listed; cannot be rotated back.
  const revoked = await call(`${INTEGRATION_KEYS_PATH}/${id}`, { method: 'DELETE', user: 'northAdmin' });
  assert.is(revoked.status, 200, revoked.text);
  assert.ok(revoked.json.revokedAt);
  for (const path of UNMASKED_INTEGRATION_PATHS) await refusedWith(`revoked key on ${path}`, call(path, { key: newKey }), 401, 'UNAUTHENTICATED', 'revoked-key');
  assert.ok((await call(INTEGRATION_KEYS_PATH, { user: 'northAdmin' })).json.data[0].revokedAt);
  assert.is((await call(`${INTEGRATION_KEYS_PATH}/${id}/rotate`, { method: 'POST', user: 'northAdmin' })).status, 404);
  assert.is((await call(`${INTEGRATION_KEYS_PATH}/${id}`, { method: 'DELETE', user: 'southAdmin' })).status, 404, 'another organisation\'s admin cannot touch it');
});

/** `faultline integration-keys ...` as the operator runs it on the host with the database; the key it printed. */
async function operatorKey(...args: string[]): Promise<string> {
  const root = new URL('../../', import.meta.url).pathname;
  const { stdout } = await promisify(execFile)(process.execPath, ['bin/faultline.js', 'integration-keys', ...args], { cwd: root, env: { ...process.env, DATABASE_URL: api.db.url, LOG_LEVEL: 'warn' } });
  const key = /^flk_[0-9a-f]{16}_[0-9a-f]{64}$/m.exec(stdout)?.[0];
  assert.ok(key, `a key printed: ${stdout}`);
  keysSeen.push(key);
  return key;
}

test('masked organisation: its admin mints no key (create, rotate: 403), lists and revokes; the operator\'s key reads every integration output unmasked, the admin\'s login reads them masked', async () => {
  const before = (await call(INTEGRATION_KEYS_PATH, { method: 'POST', user: 'northAdmin', body: { name: 'SCADA master B' } })).json.id as string;
  await setMasked('north', true);
  try {
    await refusedWith('masked admin creating a key', call(INTEGRATION_KEYS_PATH, { method: 'POST', user: 'northAdmin', body: { name: 'mine' } }), 403, 'FORBIDDEN', 'masked-organisation');
    await refusedWith('masked admin rotating a key', call(`${INTEGRATION_KEYS_PATH}/${before}/rotate`, { method: 'POST', user: 'northAdmin' }), 403, 'FORBIDDEN', 'masked-organisation');
    const problem = (await call(INTEGRATION_KEYS_PATH, { method: 'POST', user: 'northAdmin', body: { name: 'mine' } })).json.error.message as string;
    assert.match(problem, /masks fault details.*faultline integration-keys create/, 'the problem names why and what to do');
    assert.equal((await call(INTEGRATION_KEYS_PATH, { user: 'northAdmin' })).json.data.map((k: { name: string }) => k.name).filter((n: string) => n === 'mine'), [], 'nothing was created; the admin still lists');

    const key = await operatorKey('create', 'north', 'SCADA master B2');
    const listed = (await call(INTEGRATION_KEYS_PATH, { user: 'northAdmin' })).json.data as { id: string; createdBy: string }[];
    assert.is(listed.find((k) => k.id === key.slice(4, 20))?.createdBy, 'operator (command line)', 'the admin lists the operator\'s key');
    let keyWords = 0;
    for (const path of UNMASKED_INTEGRATION_PATHS) {
      const byKey = await call(path, { key });
      const byAdmin = await call(path, { user: 'northAdmin' });
      assert.is(byKey.status, 200, `${path} by key: ${byKey.text.slice(0, 200)}`);
      assert.is(byAdmin.status, 200, `${path} by admin: ${byAdmin.text.slice(0, 200)}`);
      keyWords += classWordsIn(byKey.text).length;
      assert.equal(classWordsIn(byAdmin.text), [], `${path}: the admin's login reads no class`);
    }
    assert.ok(keyWords > 0, 'the operator\'s key reads the classes (unmasked)');

    // The operator rotates it (the old secret stops); the admin may still revoke it.
    const rotated = await operatorKey('rotate', 'north', key.slice(4, 20));
    await refusedWith('the operator\'s key before rotation', call(UNMASKED_INTEGRATION_PATHS[0]!, { key }), 401, 'UNAUTHENTICATED', 'unknown-key');
    assert.is((await call(UNMASKED_INTEGRATION_PATHS[0]!, { key: rotated })).status, 200);
    assert.is((await call(`${INTEGRATION_KEYS_PATH}/${key.slice(4, 20)}`, { method: 'DELETE', user: 'northAdmin' })).status, 200, 'the masked admin revokes');
    await refusedWith('the revoked operator key', call(UNMASKED_INTEGRATION_PATHS[0]!, { key: rotated }), 401, 'UNAUTHENTICATED', 'revoked-key');

    // South masks too (the seed's MaskFaultDetails): its admin is refused the same way.
    await refusedWith('another masked organisation\'s admin creating a key', call(INTEGRATION_KEYS_PATH, { method: 'POST', user: 'southAdmin', body: { name: 'south SCADA' } }), 403, 'FORBIDDEN', 'masked-organisation');
    // Once the organisation no longer masks, its admin creates keys again (the mask is read per request).
    await setMasked('north', false);
    const unmasked = await call(INTEGRATION_KEYS_PATH, { method: 'POST', user: 'northAdmin', body: { name: 'SCADA master B3' } });
    assert.is(unmasked.status, 201, `an unmasked organisation's admin creates keys: ${unmasked.text.slice(0, 200)}`);
    keysSeen.push(unmasked.json.key as string);
  } finally {
    await setMasked('north', false);
  }
});

test('an organisation that does not mask: the password login keeps working on every integration output', async () => {
  for (const path of UNMASKED_INTEGRATION_PATHS) assert.is((await call(path, { user: 'southAdmin' })).status, path.includes('iec104') ? 404 : 200, path);
  for (const path of UNMASKED_INTEGRATION_PATHS) assert.is((await call(path, { user: 'northAdmin' })).status, 200, path);
});

test('a key reads nothing but the integration outputs, and manages no keys; a user cannot manage keys', async () => {
  const key = (await call(INTEGRATION_KEYS_PATH, { method: 'POST', user: 'northAdmin', body: { name: 'SCADA master C' } })).json.key as string;
  keysSeen.push(key);
  for (const path of ['/device-records/map-data', '/api/alarms', '/api/incidents', '/api/dnp3/diagnostics', '/api/test-faults', INTEGRATION_KEYS_PATH]) {
    await refusedWith(`key on ${path}`, call(path, { key }), 403, 'FORBIDDEN');
  }
  await refusedWith('key creating a key', call(INTEGRATION_KEYS_PATH, { method: 'POST', key, body: { name: 'x' } }), 403, 'FORBIDDEN');
  await refusedWith('user listing keys', call(INTEGRATION_KEYS_PATH, { user: 'northEast' }), 403, 'FORBIDDEN');
  await refusedWith('user creating a key', call(INTEGRATION_KEYS_PATH, { method: 'POST', user: 'northEast', body: { name: 'x' } }), 403, 'FORBIDDEN');
  for (const body of [{}, { name: '' }, { name: 'x'.repeat(201) }, { name: 3 }, { name: 'ok', role: 'admin' }]) {
    await refusedWith(`create with ${JSON.stringify(body).slice(0, 40)}`, call(INTEGRATION_KEYS_PATH, { method: 'POST', user: 'northAdmin', body }), 400, 'INVALID_BODY');
  }
  await refusedWith('rotate a bad id', call(`${INTEGRATION_KEYS_PATH}/nothex/rotate`, { method: 'POST', user: 'northAdmin' }), 400, 'BAD_PARAMETER');
});

test('unknown, forged and malformed keys: 401 naming the problem; the log names the reason, never the key', async () => {
  const real = (await call(INTEGRATION_KEYS_PATH, { method: 'POST', user: 'northAdmin', body: { name: 'SCADA master D' } })).json.key as string;
  keysSeen.push(real);
  const id = real.slice(4, 20);
  const path = UNMASKED_INTEGRATION_PATHS[1]!;
  const flip = (s: string) => s.slice(0, -1) + (s.endsWith('0') ? '1' : '0');
  const unknown: Record<string, string> = {
    'wrong secret of a real id': flip(real),
    'unknown id': `flk_0000000000000000_${real.slice(21)}`,
    'another organisation\'s id with a made-up secret': `flk_${id}_${'ab'.repeat(32)}`,
  };
  for (const [label, key] of Object.entries(unknown)) await refusedWith(label, call(path, { key, address: '198.51.100.20' }), 401, 'UNAUTHENTICATED', 'unknown-key');
  for (const [label, key] of Object.entries({ truncated: real.slice(0, -2), 'upper case': real.toUpperCase(), 'prefix only': 'flk_', 'SQL': "flk_' or 1=1 --" })) {
    await refusedWith(label, call(path, { key, address: '198.51.100.20' }), 401, 'UNAUTHENTICATED', 'malformed');
  }
  const refusals = logged.filter((l) => l.includes('integration key refused'));
  assert.ok(refusals.length >= 7, `${refusals.length} refusals logged`);
  assert.ok(refusals.some((l) => l.includes('unknown-key')) && refusals.some((l) => l.includes('revoked-key')), 'with their reasons');
  for (const k of [...keysSeen, ...Object.values(unknown)]) {
    const secret = parseIntegrationKey(k)!.secret;
    assert.not.ok(logged.some((l) => l.includes(secret)), 'no secret in any log line');
  }
});

test('failed keys fill the address\'s login window: a 429 with Retry-After, even for the right key; other addresses unaffected', async () => {
  const key = (await call(INTEGRATION_KEYS_PATH, { method: 'POST', user: 'northAdmin', body: { name: 'SCADA master E' } })).json.key as string;
  keysSeen.push(key);
  const path = UNMASKED_INTEGRATION_PATHS[0]!;
  let limited = 0;
  for (let i = 0; i < 55; i++) {
    tried++;
    const res = await call(path, { key: `flk_${i.toString(16).padStart(16, '0')}_${'0'.repeat(64)}`, address: '203.0.113.77' });
    if (res.status === 429) { limited++; assert.ok(Number(res.headers.get('retry-after')) > 0, 'Retry-After'); }
    refused += res.status === 401 || res.status === 429 ? 1 : 0;
  }
  assert.is(limited, 5, 'the 51st to 55th guesses from one address are refused before any lookup');
  await refusedWith('the right key from that address', call(path, { key, address: '203.0.113.77' }), 429, 'RATE_LIMITED');
  assert.is((await call(path, { key, address: '203.0.113.78' })).status, 200, 'another address is not held back');
});

test.run();
