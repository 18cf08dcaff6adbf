// Hostile callers (issue 28, point 4; docs/decisions.md#hostile-callers), each a real attack over HTTP on the
// app listening on loopback over a database filled by the real stages, refused:
// - a login flood rotating X-Forwarded-For (left entries, behind a trusted proxy; every entry, without one)
//   and IPv6 addresses inside one /64;
// - guesses split between REST and SOAP (one limit for both, per email and per address);
// - a flood of concurrent logins while the password checks are busy (503 / SOAP fault with Retry-After, the
//   process keeps answering) and an unheld flood (never more hashes at once than the gate allows);
// - a flood of distinct list queries (prepared statements per backend stay bounded: pg_prepared_statements);
// - extreme `from` / `to` days on every route of the OpenAPI document that takes them (400 naming it);
// - device check-ins dated in far months through the real pipeline (no partition made, nothing lost);
// - a webhook saved to an address literal while loopback was allowed, sent after it no longer is.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { createApp } from '../../api/app.js';
import { HashGate } from '../../api/auth/hash-gate.js';
import { clientAddressBehind } from '../../api/client-address.js';
import { MAX_PREPARED_TEXTS } from '../../api/device-records/prepared.js';
import { listen } from '../../api/server.js';
import { startAlarmWorker } from '../../alarms/start.js';
import { loadAlarmSettings, loadSettings } from '../../config/settings.js';
import { NAMESPACE } from '../../multispeak/versions.js';
import { localAvroCodec } from '../../stages/runtime/codec.js';
import { memoryTransport } from '../../stages/runtime/transport/memory.js';
import { timePartitions } from '../../storage/partitions.js';
import { fixtureText } from '../../support/checkins.js';
import { startTestPipeline } from '../../support/pipeline.js';
import { testKeyring } from '../../support/reference-data.js';
import { reportTally } from '../helpers/tally.js';
import { startHttpPeer } from '../integration/alarms/peers.js';
import { JWT_SECRET, seededApi, USERS, type SeededApi } from '../integration/api/seeded-api.js';

let api: SeededApi;
const gate = new HashGate({ concurrent: 2, waiting: 4, maxWaitMs: 3_000 });
/** Behind one trusted proxy (TRUST_PROXY=1): the proxy appends the address it saw, the right-most entry. */
let proxied = '';
/** No proxy trusted (the default): X-Forwarded-For is ignored. */
let direct = '';
const servers: { close(): Promise<void> }[] = [];
let tried = 0;
let refused = 0;

test.before(async () => {
  api = await seededApi({ app: { clientAddress: clientAddressBehind(loadSettings({ TRUST_PROXY: '1' }).trustProxy), hashGate: gate, accountCacheMs: 0, alarms: { keyring: testKeyring(), webhookAllow: ['loopback'] } } });
  const a = await listen(api.app, { port: 0, hostname: '127.0.0.1' });
  const b = await listen(createApp({ readiness: {}, pool: api.db.pool, jwtSecret: JWT_SECRET }), { port: 0, hostname: '127.0.0.1' });
  servers.push(a, b);
  proxied = `http://127.0.0.1:${a.port}`;
  direct = `http://127.0.0.1:${b.port}`;
});
test.after(async () => {
  for (const s of servers) await s.close();
  await api?.close();
  reportTally('hostile-callers', { attacksTried: tried, attacksRefused: refused });
});

const randomIp = () => [...randomBytes(4)].join('.');
const randomEmail = () => `guess-${randomBytes(6).toString('hex')}@north.example`;

function restLogin(base: string, email: string, password: string, xff?: string): Promise<Response> {
  return fetch(`${base}/api/auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...(xff ? { 'x-forwarded-for': xff } : {}) }, body: JSON.stringify({ email, password }),
  });
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
function soapLogin(base: string, email: string, password: string, xff?: string): Promise<Response> {
  const body = `<?xml version="1.0"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:m="${NAMESPACE['4.1']}"><soap:Header>`
    + `<m:MultiSpeakMsgHeader MajorVersion="4" MinorVersion="1" BuildString="Release" UserID="${escape(email)}" Pwd="${escape(password)}"/></soap:Header>`
    + '<soap:Body><m:PingURL/></soap:Body></soap:Envelope>';
  return fetch(`${base}/soap`, { method: 'POST', headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '""', ...(xff ? { 'x-forwarded-for': xff } : {}) }, body });
}

/** The JSON error code of a REST answer, or the SOAP fault's detail code. */
async function codeOf(res: Response): Promise<string> {
  const text = await res.text();
  assert.not.match(text, /\bselect\b.+\bfrom\b|\bat .+\.(ts|js):\d+|node_modules/i, 'no SQL or stack in the answer');
  if (res.headers.get('content-type')?.includes('xml')) return /<code>([A-Z_]+)<\/code>/.exec(text)?.[1] ?? (res.status === 200 ? 'OK' : 'NO_CODE');
  if (res.status === 200) return 'OK';
  return (JSON.parse(text) as { error: { code: string } }).error.code;
}

/** Sequential wrong logins until refused; how many were checked (401) before the limit (429). */
async function floodUntilLimited(send: (i: number) => Promise<Response>, max: number): Promise<number> {
  let checked = 0;
  for (let i = 0; i < max; i++) {
    const res = await send(i);
    const code = await codeOf(res);
    tried++;
    if (code === 'RATE_LIMITED') {
      assert.ok(Number(res.headers.get('retry-after')) > 0, 'Retry-After on the refusal');
      refused++;
      return checked;
    }
    assert.ok(code === 'INVALID_CREDENTIALS' || code === 'BAD_CREDENTIALS', `attempt ${i}: ${code}`);
    refused++; // a wrong guess, refused
    checked++;
  }
  return checked;
}

test('a login flood rotating the X-Forwarded-For entries the client writes is limited by the address the proxy saw', async () => {
  // The attacker writes any entries it likes; the trusted proxy appends 198.51.100.7, the address it saw.
  const checked = await floodUntilLimited((i) => restLogin(proxied, randomEmail(), `wrong-${i}`, `${randomIp()}, ${randomIp()}, 198.51.100.7`), 80);
  assert.is(checked, 50, 'the per-address limit (50) held although every request named other addresses');
  // Without a trusted proxy the header is not read at all: the socket's address counts.
  const direct50 = await floodUntilLimited((i) => restLogin(direct, randomEmail(), `wrong-${i}`, randomIp()), 80);
  assert.is(direct50, 50, 'X-Forwarded-For ignored without TRUST_PROXY');
});

test('a login flood rotating IPv6 addresses inside one /64 is limited as one address', async () => {
  const hex = () => randomBytes(2).toString('hex');
  const checked = await floodUntilLimited((i) => soapLogin(proxied, randomEmail(), `wrong-${i}`, `2001:db8:77:1:${hex()}:${hex()}:${hex()}:${hex()}`), 80);
  assert.is(checked, 50, 'the whole /64 is one subscriber');
  const other = await restLogin(proxied, randomEmail(), 'wrong', '2001:db8:77:2::1');
  assert.is(await codeOf(other), 'INVALID_CREDENTIALS', 'the next /64 is counted apart (the test can tell)');
});

test('guesses split between REST and SOAP share one limit, per email and per address', async () => {
  const victim = USERS.northEast;
  // Per email: 10 wrong passwords, alternately over REST and SOAP, each from its own address.
  for (let i = 0; i < 10; i++) {
    const res = i % 2 ? await soapLogin(proxied, victim.email, `wrong-${i}`, `203.0.113.${i + 1}`) : await restLogin(proxied, victim.email, `wrong-${i}`, `203.0.113.${i + 1}`);
    assert.ok(['INVALID_CREDENTIALS', 'BAD_CREDENTIALS'].includes(await codeOf(res)), `guess ${i}`);
  }
  for (const [label, res] of [
    ['REST, right password, fresh address', await restLogin(proxied, victim.email, victim.password, '203.0.113.50')],
    ['SOAP, right password, fresh address', await soapLogin(proxied, victim.email, victim.password, '203.0.113.51')],
  ] as const) {
    tried++;
    assert.is(await codeOf(res), 'RATE_LIMITED', label);
    assert.ok(Number(res.headers.get('retry-after')) > 0, `${label}: Retry-After`);
    refused++;
  }
  // Per address: 25 wrong over REST and 25 over SOAP from one address, each for another email.
  for (let i = 0; i < 50; i++) {
    const res = i % 2 ? await soapLogin(proxied, randomEmail(), 'wrong', '203.0.113.200') : await restLogin(proxied, randomEmail(), 'wrong', '203.0.113.200');
    assert.ok(['INVALID_CREDENTIALS', 'BAD_CREDENTIALS'].includes(await codeOf(res)), `address guess ${i}`);
  }
  for (const res of [await restLogin(proxied, USERS.southAdmin.email, USERS.southAdmin.password, '203.0.113.200'), await soapLogin(proxied, USERS.southAdmin.email, USERS.southAdmin.password, '203.0.113.200')]) {
    tried++;
    assert.is(await codeOf(res), 'RATE_LIMITED', 'the 51st attempt from one address, whichever door');
    refused++;
  }
});

test('a login flood while the password checks are busy: 503 / SOAP BUSY with Retry-After at once or after a short wait; the process keeps answering', async () => {
  // The gate's two slots are taken (as by the head of a flood), so every request of this flood waits or is refused.
  const releases: (() => void)[] = [];
  const held = [0, 1].map(() => gate.run(() => new Promise<void>((r) => releases.push(r))));
  try {
    const flood = Array.from({ length: 40 }, (_, i) => (i % 2 ? soapLogin : restLogin)(proxied, randomEmail(), 'wrong', `198.18.${i >> 8}.${i & 255}`));
    const health = await fetch(`${proxied}/healthz`);
    assert.is(health.status, 200, 'other requests are served during the flood');
    const answers = await Promise.all(flood);
    for (const [i, res] of answers.entries()) {
      tried++;
      const code = await codeOf(res);
      if (i % 2) assert.is(code, 'BUSY', `SOAP ${i}`);
      else { assert.is(res.status, 503, `REST ${i}`); assert.is(code, 'UNAVAILABLE'); }
      assert.ok(Number(res.headers.get('retry-after')) >= 1, `flood ${i}: Retry-After`);
      refused++;
    }
    assert.ok(gate.refused >= 40);
  } finally {
    for (const r of releases) r();
    await Promise.all(held);
  }
  const after = await restLogin(proxied, USERS.northAdmin.email, USERS.northAdmin.password, '198.18.9.9');
  assert.is(after.status, 200, 'the right login works once the flood has passed');
});

test('an unheld flood of concurrent logins: every answer is a refusal, never more hashes at once than the gate allows', async () => {
  const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? soapLogin : restLogin)(proxied, randomEmail(), 'wrong', `198.19.${i >> 8}.${i & 255}`)));
  for (const res of answers) {
    tried++;
    const code = await codeOf(res);
    assert.ok(['INVALID_CREDENTIALS', 'BAD_CREDENTIALS', 'UNAVAILABLE', 'BUSY'].includes(code), code);
    if (code === 'UNAVAILABLE' || code === 'BUSY') assert.ok(Number(res.headers.get('retry-after')) >= 1);
    refused++;
  }
  assert.ok(gate.peak <= gate.concurrent, `peak ${gate.peak} concurrent hashes`);
});

test('a flood of distinct list queries cannot grow the prepared statements of the backends without bound', async () => {
  // Each limit is another SQL text on the first page (a prepared statement per text before the cap).
  tried++;
  // Sequential, so the pool's connections are reused (the most recently released first) and each sees most
  // of the texts: ~600 distinct ones, three times the cap.
  const auth = { authorization: `Bearer ${api.tokens.northAdmin}` };
  let sent = 0;
  for (const order of ['desc', 'asc']) {
    for (let limit = 1; limit <= 300; limit++) {
      const res = await fetch(`${proxied}/device-records/data-log?limit=${limit}&sortBy=${encodeURIComponent(JSON.stringify({ field: 'date', order }))}`, { headers: auth });
      assert.is(res.status, 200, await res.clone().text());
      await res.arrayBuffer();
      sent++;
    }
  }
  // pg_prepared_statements lists the statements of the session that asks: ask on every connection of the pool.
  const clients = await Promise.all(Array.from({ length: api.db.pool.totalCount }, () => api.db.pool.connect()));
  try {
    const counts = await Promise.all(clients.map(async (c) => Number((await c.query(`select count(*) as n from pg_prepared_statements where name like 'fl\\_%'`)).rows[0].n)));
    assert.ok(counts.some((c) => c > 0), 'the lists are still prepared (the test can fail)');
    for (const c of counts) assert.ok(c <= MAX_PREPARED_TEXTS, `a backend holds ${c} prepared statements (cap ${MAX_PREPARED_TEXTS}; ${sent} distinct texts were sent)`);
    refused++;
  } finally {
    for (const c of clients) c.release();
  }
});

test('extreme from / to days on every route of the OpenAPI document that takes them: a 400 naming the parameter', async () => {
  const doc = (await (await fetch(`${proxied}/openapi.json`)).json()) as { paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>> };
  const imei = ((await (await fetch(`${proxied}/device-records/map-data`, { headers: { authorization: `Bearer ${api.tokens.northAdmin}` } })).json()) as { data: { IMEINumber: string }[] }).data[0]!.IMEINumber;
  let routes = 0;
  for (const [path, ops] of Object.entries(doc.paths)) {
    const params = (ops.get?.parameters ?? []).filter((p) => p.in === 'query' && ['from', 'to'].includes(p.name)).map((p) => p.name);
    if (params.length === 0) continue;
    routes++;
    const url = path.replace(/\{[^}]+\}/g, imei);
    for (const name of params) {
      for (const value of ['00010101', '99991231', '19000101', '30000101', '10000101']) {
        const res = await fetch(`${proxied}${url}?${name}=${value}`, { headers: { authorization: `Bearer ${api.tokens.northAdmin}` } });
        tried++;
        const text = await res.text();
        assert.is(res.status, 400, `${url}?${name}=${value}: ${text.slice(0, 200)}`);
        const error = (JSON.parse(text) as { error: { code: string; message: string; details: { parameter: string } } }).error;
        assert.is(error.details.parameter, name);
        assert.match(error.message, `"${name}"`);
        refused++;
      }
    }
  }
  assert.ok(routes >= 4, `${routes} routes take from/to (the walk found them)`);
});

test('device check-ins dated in far months: no partition is made for them, and none is lost', async () => {
  const imei = ((await api.db.pool.query(`select "IMEINumber" from device_information where "OrganizationID" = 'north' and deleted_at is null order by 1 limit 1`)).rows[0] as { IMEINumber: string }).IMEINumber;
  const before = new Set((await timePartitions(api.db.pool)).map((p) => p.month));
  const message = (name: string, date: string, eventAt: string) => {
    const m = JSON.parse(fixtureText('002-permanent-fault.json')) as { device_data: Record<string, unknown>; events: Record<string, unknown>[] };
    m.device_data = { ...m.device_data, IMEINumber: imei, date };
    m.events = m.events.map((e, i) => ({ ...e, EventID: 77_000 + i, EventTimestamp: eventAt }));
    return { name, body: JSON.stringify(m) };
  };
  const now = new Date().toISOString();
  const sent = [
    message('far-future-checkin', '2090-05-10T08:00:00.000Z', '2090-05-10T07:59:00.000Z'),
    message('far-future-event', now, '2091-01-01T00:00:00.000Z'),
    message('far-past-checkin', '2003-07-10T08:00:00.000Z', '2003-07-10T07:59:00.000Z'),
  ];
  const transport = memoryTransport({ codec: localAvroCodec(), partitions: 2 });
  const pipe = await startTestPipeline(transport, api.db.pool);
  try {
    await pipe.feed(sent);
    await pipe.drain();
  } finally {
    await pipe.stop();
    await transport.close();
  }
  const months = new Set((await timePartitions(api.db.pool)).map((p) => p.month));
  for (const m of ['2090-05', '2091-01', '2003-07']) {
    tried++;
    assert.not.ok(months.has(m), `no partition for ${m}`);
    refused++;
  }
  assert.equal([...months].filter((m) => !before.has(m)), [], 'no partition made at all');
  // Nothing lost: the future ones are dead letters with their reason, the old one is stored (default partition).
  const rejected = (await api.db.pool.query(`select message_id, reason from rejected_messages where message_id = any($1)`, [['far-future-checkin', 'far-future-event']])).rows as { message_id: string; reason: string }[];
  assert.equal(rejected.map((r) => r.message_id).sort(), ['far-future-checkin', 'far-future-event']);
  for (const r of rejected) assert.match(r.reason, 'future');
  const stored = (await api.db.pool.query(`select tableoid::regclass::text as p from device_records where "IMEINumber" = $1 and date = '2003-07-10T08:00:00Z'`, [imei])).rows as { p: string }[];
  assert.equal(stored.map((r) => r.p), ['device_records_default']);
});

test('a webhook saved to an address literal while loopback was allowed is refused at send time once it is not', async () => {
  const peer = await startHttpPeer();
  try {
    const hostPort = new URL(peer.url).host;
    const targets = { 'hook-v4': peer.url, 'hook-mapped': peer.url.replace('127.0.0.1', '[::ffff:127.0.0.1]') };
    for (const [id, address] of Object.entries(targets)) {
      const res = await fetch(`${proxied}/api/alarm-recipients/${id}`, { method: 'PUT', headers: { authorization: `Bearer ${api.tokens.northAdmin}`, 'content-type': 'application/json' }, body: JSON.stringify({ channel: 'webhook', address }) });
      assert.is(res.status, 200, `${id} saved while ALARM_WEBHOOK_ALLOW=loopback: ${await res.text()}`);
      await api.db.pool.query(`insert into alarm_outbox ("OrganizationID", recipient_id, kind, lane, dedup_key, payload) values ('north', $1, 'raised', 'x', $1, '{}')`, [id]);
    }
    // The operator then removes loopback from ALARM_WEBHOOK_ALLOW; the alarm worker sends what is queued.
    const worker = startAlarmWorker({ pool: api.db.pool, settings: loadAlarmSettings({}), offlineAfterHours: 26, keyring: testKeyring() }, { loop: false });
    try {
      await worker.sendOnce();
    } finally {
      await worker.stop();
    }
    const rows = (await api.db.pool.query(`select recipient_id, last_error, delivered_at from alarm_outbox where recipient_id = any($1) order by 1`, [Object.keys(targets)])).rows as { recipient_id: string; last_error: string | null; delivered_at: Date | null }[];
    assert.is(rows.length, 2);
    for (const r of rows) {
      tried++;
      assert.is(r.delivered_at, null, `${r.recipient_id} not delivered`);
      assert.match(r.last_error ?? '', 'TARGET_REFUSED', `${r.recipient_id}: ${r.last_error}`);
      refused++;
    }
    assert.is(peer.requests.length, 0, `nothing reached ${hostPort}`);
  } finally {
    await peer.stop();
  }
});

test.run();
