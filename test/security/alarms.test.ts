// The alarm surface under attack (issue 20): rule, recipient and delivery endpoints answer only admins of
// their own organisation; webhook targets inside the network are refused when saved and at send time;
// webhook secrets never come back from the API, are stored only sealed, and never reach a log line.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { sendWebhook } from '../../alarms/channels/webhook.js';
import { HttpSendError } from '../../outbox/http-post.js';
import { seededApi, type SeededApi, type UserName } from '../integration/api/seeded-api.js';
import { testKeyring } from '../../support/reference-data.js';
import { reportTally } from '../helpers/tally.js';
import { startHttpPeer } from '../integration/alarms/peers.js';

const test = suite('alarm security');
let api: SeededApi;
let tried = 0;
let refused = 0;
const SECRET = 'whsec-never-logged-0123456789';

async function call(method: string, path: string, user: UserName, body?: unknown): Promise<Response> {
  return api.app.request(path, {
    method, headers: { authorization: `Bearer ${api.tokens[user]}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}
const attack = async (what: string, res: Promise<Response>, status: number) => {
  tried++;
  const r = await res;
  assert.is(r.status, status, `${what}: ${r.status} ${await r.clone().text()}`);
  const text = await r.text();
  assert.not.match(text, /at \w+ \(|select |insert |stack/i, `${what}: no stack or SQL`);
  refused++;
};

test.before(async () => {
  api = await seededApi({ feed: false, app: { alarms: { keyring: testKeyring(), webhookAllow: [] } } });
  const ok = await call('PUT', '/api/alarm-recipients/north-desk', 'northAdmin', { channel: 'email', address: 'desk@north.example' });
  assert.is(ok.status, 200, await ok.text());
  const rule = await call('PUT', '/api/alarm-rules/north-faults', 'northAdmin', { class: 'operations', what: ['permanent'], who: ['north-desk'] });
  assert.is(rule.status, 200, await rule.text());
});
test.after(async () => {
  reportTally('alarms', { attacksTried: tried, attacksRefused: refused });
  await api?.close();
});

test('rule, recipient and delivery endpoints: admins of their own organisation only', async () => {
  for (const [method, path, body] of [
    ['GET', '/api/alarm-rules', undefined], ['GET', '/api/alarm-recipients', undefined], ['GET', '/api/alarm-deliveries', undefined],
    ['PUT', '/api/alarm-rules/x', { class: 'operations', what: ['permanent'], who: ['north-desk'] }],
    ['PUT', '/api/alarm-recipients/x', { channel: 'email', address: 'a@b.example' }], ['DELETE', '/api/alarm-rules/north-faults', undefined],
  ] as const) {
    await attack(`user ${method} ${path}`, call(method, path, 'northEast', body), 403);
  }
  // South's admin: north's rows are invisible, not writable, not deletable.
  assert.equal(((await (await call('GET', '/api/alarm-rules', 'southAdmin')).json()) as { data: unknown[] }).data, []);
  await attack('other org takes over an id', call('PUT', '/api/alarm-rules/north-faults', 'southAdmin', { class: 'operations', what: ['permanent'], who: ['south-x'] }), 409);
  await attack('other org names an organisation', call('PUT', '/api/alarm-rules/s1', 'southAdmin', { OrganizationID: 'north', class: 'operations', what: ['permanent'], who: ['north-desk'] }), 403);
  await attack('other org routes to a recipient of north', call('PUT', '/api/alarm-rules/s2', 'southAdmin', { class: 'operations', what: ['permanent'], who: ['north-desk'] }), 400);
  await attack('other org deletes', call('DELETE', '/api/alarm-rules/north-faults', 'southAdmin'), 404);
  await attack('other org acknowledges', call('POST', '/api/alarms/1/acknowledge', 'southAdmin'), 404);
  await attack('bad rule kind', call('PUT', '/api/alarm-rules/n2', 'northAdmin', { class: 'operations', what: ['everything'], who: ['north-desk'] }), 400);
});

test('webhook targets on loopback, link-local and private ranges are refused when saved', async () => {
  for (const address of ['http://127.0.0.1:9/x', 'http://localhost/x', 'http://10.1.2.3/x', 'http://172.20.0.1/x', 'http://192.168.1.1/x',
    'http://169.254.169.254/latest/meta-data', 'http://[::1]/x', 'http://[fe80::1]/x', 'http://[::ffff:127.0.0.1]/x', 'http://0.0.0.0/x', 'file:///etc/passwd', 'http://user:pw@hooks.example/x']) {
    await attack(`webhook ${address}`, call('PUT', '/api/alarm-recipients/hook', 'northAdmin', { channel: 'webhook', address, secret: SECRET }), 400);
  }
});

test('a public name that resolves inside is refused at send time', async () => {
  const peer = await startHttpPeer();
  try {
    tried++;
    const url = peer.url.replace('127.0.0.1', 'localhost'); // a name, resolved only when connecting
    const err = await sendWebhook({ url, secret: null, body: {}, idempotencyKey: 'k', allow: [], nowMs: Date.now() }).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof HttpSendError && err.code === 'TARGET_REFUSED', String(err));
    assert.is(peer.requests.length, 0);
    refused++;
  } finally {
    await peer.stop();
  }
});

test('webhook secrets: never returned, stored only sealed, never logged', async () => {
  const lines: string[] = [];
  const res = await call('PUT', '/api/alarm-recipients/north-hook', 'northAdmin', { channel: 'webhook', address: 'https://hooks.north.example/fl', secret: SECRET });
  const text = await res.text();
  assert.is(res.status, 200, text);
  assert.not.ok(text.includes(SECRET));
  assert.is((JSON.parse(text) as { hasSecret: boolean }).hasSecret, true);
  const list = await (await call('GET', '/api/alarm-recipients', 'northAdmin')).text();
  assert.not.ok(list.includes(SECRET));
  const { rows } = await api.db.pool.query<{ secret: Buffer; row: string }>(`select secret, row_to_json(r)::text as row from alarm_recipients r where id = 'north-hook'`);
  assert.not.ok(rows[0]!.secret.includes(Buffer.from(SECRET)), 'sealed at rest');
  assert.not.ok(rows[0]!.row.includes(SECRET));
  // The logger's redaction is the net: a careless log of the recipient or a body stays clean.
  const logger = pino({ redact: { paths: ['secret', '*.secret'], censor: '[redacted]' } }, new Writable({ write(c, _e, cb) { lines.push(String(c)); cb(); } }));
  logger.warn({ secret: SECRET, recipient: { secret: SECRET } }, 'x');
  assert.not.ok(lines.join('').includes(SECRET));
  // A bad body with the secret in it: the 400 names the field, never the value.
  const bad = await (await call('PUT', '/api/alarm-recipients/north-hook', 'northAdmin', { channel: 'sms', address: '+15550100', secret: SECRET })).text();
  assert.not.ok(bad.includes(SECRET), bad);
});

test.run();
