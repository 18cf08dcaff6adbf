// Attacks on the request kit and the endpoint tables (issue 46; api/request.ts, api/write-endpoint.ts), over
// real HTTP on the app listening on loopback over a real database, as a hostile user of one organisation and
// as a caller with no token:
// - bodies over each entry's limit, declared or streamed chunked with no Content-Length, and with both framings;
// - gzip and deflate bodies (a small zip bomb): nothing inflates them, they are refused as the encoding they are;
// - content types beside JSON (text/plain JSON, json-patch, forms, none) and JSON's own kin with parameters;
// - deep nesting, large arrays, duplicate keys, `__proto__` and `constructor` keys, NUL and lone surrogates;
// - path ids with leading zeros, signs, unicode digits, 2^53+1, percent-encoded slashes and NUL;
// - every write route reached without a token, by a user on admin routes, with another method, a trailing
//   slash or a method-override header; another organisation's rows;
// - If-None-Match lists and `*`, `format=csv` where no CSV is offered.
// Every answer is the 4xx naming the problem (or the route's documented answer), never a 5xx, a stack or SQL,
// and nothing is written by a refused request. Held attacks guard the next refactor of the kit.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request as httpRequest } from 'node:http';
import { deflateSync, gzipSync } from 'node:zlib';
import { listen, type Listening } from '../../api/server.js';
import { loadCodeStrings } from '../../api/device-records/code-strings-file.js';
import { openApiDocument } from '../../api/openapi/document.js';
import { WRITE_ENDPOINTS } from '../../api/openapi/write-endpoints.js';
import { testKeyring } from '../../support/reference-data.js';
import { reportTally } from '../helpers/tally.js';
import { seededApi, type SeededApi, type UserName } from '../integration/api/seeded-api.js';

let api: SeededApi;
let server: Listening;
let tried = 0;
let refused = 0;

test.before(async () => {
  api = await seededApi({ feed: false, app: { accountCacheMs: 0, alarms: { keyring: testKeyring(), webhookAllow: [] } } });
  server = await listen(api.app, { port: 0, hostname: '127.0.0.1' });
  // Rows to aim at: a recipient and a rule of each organisation.
  for (const org of ['north', 'south'] as const) {
    const admin: UserName = org === 'north' ? 'northAdmin' : 'southAdmin';
    const r = await send('PUT', `/api/alarm-recipients/${org}-desk`, { user: admin, json: { channel: 'email', address: `desk@${org}.example` } });
    assert.is(r.status, 200, r.text);
    const rule = await send('PUT', `/api/alarm-rules/${org}-faults`, { user: admin, json: { class: 'operations', what: ['permanent'], who: [`${org}-desk`] } });
    assert.is(rule.status, 200, rule.text);
  }
});
test.after(async () => {
  await server?.close();
  await api?.close();
  reportTally('request-attacks', { attacksTried: tried, attacksRefused: refused });
});

interface Answer { status: number; text: string; headers: Record<string, string | string[] | undefined> }

interface Sent {
  user?: UserName | null;
  headers?: Record<string, string>;
  /** Sent as one piece with its Content-Length (unless `headers` says otherwise). */
  body?: string | Buffer;
  /** Sent as JSON with Content-Type: application/json. */
  json?: unknown;
  /** Streamed one write each, with Transfer-Encoding: chunked and no Content-Length. */
  chunks?: (string | Buffer)[];
}

/** One request over a fresh connection (node:http, so the framing is exactly what the attack says). */
function send(method: string, path: string, { user = null, headers = {}, body, json, chunks }: Sent = {}): Promise<Answer> {
  const payload = json === undefined ? body : JSON.stringify(json);
  const h: Record<string, string> = {
    ...(user ? { authorization: `Bearer ${api.tokens[user]}` } : {}),
    ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    ...(payload !== undefined && !('content-length' in headers) ? { 'content-length': String(Buffer.byteLength(payload)) } : {}),
    ...headers,
  };
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: server.port, method, path, headers: h, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8'), headers: res.headers }));
      res.on('error', reject);
    });
    // The server may answer (413) and close before the whole body is written: that is a refusal, not an error.
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? resolve({ status: -1, text: err.code, headers: {} }) : reject(err)));
    if (chunks) {
      const next = (i: number) => {
        if (i === chunks.length) { req.end(); return; }
        if (!req.write(chunks[i]!)) req.once('drain', () => next(i + 1)); else setImmediate(() => next(i + 1));
      };
      next(0);
    } else {
      req.end(payload);
    }
  });
}

const SQL_OR_STACK = /\bselect\b.+\bfrom\b|\binsert into\b|syntax error|relation "|column "|\bat .+\.(ts|js):\d+|node_modules|pg-protocol|invalid byte sequence|Error: /i;

/** One attack: refused with `status` (one of them) and the error `code`, an error body only, no stack or SQL. */
function attack(label: string, a: Answer, status: number | number[], code?: string): void {
  tried++;
  const statuses = Array.isArray(status) ? status : [status];
  assert.ok(statuses.includes(a.status), `${label}: status ${a.status}, expected ${statuses.join(' or ')} (${a.text.slice(0, 300)})`);
  if (a.status >= 300 || a.status < 0) assert.not.match(a.text, SQL_OR_STACK, `${label}: no SQL or stack in the answer`);
  if (a.status >= 400 && a.status < 500 && a.text !== '' && a.headers['content-type']?.toString().includes('json')) {
    const body = JSON.parse(a.text) as { error?: { code: string; message: string } };
    assert.ok(body.error && body.error.message.length > 0, `${label}: an error body with a message`);
    if (code) assert.is(body.error.code, code, `${label}: code (${a.text.slice(0, 300)})`);
    assert.equal(Object.keys(body), ['error'], `${label}: nothing beside the error`);
  } else if (code) {
    assert.unreachable(`${label}: expected a JSON error ${code}, got ${a.status} ${a.headers['content-type']} ${a.text.slice(0, 200)}`);
  }
  refused++;
}

/** Every write entry with a body, as (method, a concrete path, the limit) aimed where its guards let an admin through. */
const BODY_ROUTES: { method: string; path: string; limit: number; user: UserName | null }[] = [
  { method: 'POST', path: '/api/auth/login', limit: 4096, user: null },
  { method: 'PUT', path: '/api/alarm-rules/north-big', limit: 16 * 1024, user: 'northAdmin' },
  { method: 'PUT', path: '/api/alarm-recipients/north-big', limit: 16 * 1024, user: 'northAdmin' },
  { method: 'POST', path: '/api/alarms/1/shelve', limit: 4096, user: 'northAdmin' },
  { method: 'POST', path: '/api/board/feeders/L1/acknowledge', limit: 4096, user: 'northAdmin' },
  { method: 'PUT', path: '/api/incident-causes', limit: 8 * 1024, user: 'northAdmin' },
  { method: 'POST', path: '/api/incidents/1/cause', limit: 8 * 1024, user: 'northAdmin' },
  { method: 'POST', path: '/api/indicator-audit/findings/1/dismiss', limit: 4096, user: 'northAdmin' },
  { method: 'POST', path: '/api/integration-keys', limit: 4096, user: 'northAdmin' },
  { method: 'POST', path: '/api/test-faults', limit: 4096, user: 'northAdmin' },
];

/** A JSON object of about `bytes` bytes (one long string field). */
const bigJson = (bytes: number) => JSON.stringify({ name: 'x'.repeat(bytes) });

test('bodies over the limit: declared, streamed chunked with no Content-Length, or framed both ways, are refused before they are read', async () => {
  for (const r of BODY_ROUTES) {
    const over = bigJson(r.limit + 10);
    attack(`declared over ${r.method} ${r.path}`, await send(r.method, r.path, { user: r.user, body: over, headers: { 'content-type': 'application/json' } }), 413, 'PAYLOAD_TOO_LARGE');
    const chunks = over.match(/.{1,1000}/gs)!;
    attack(`chunked over ${r.method} ${r.path}`, await send(r.method, r.path, { user: r.user, chunks, headers: { 'content-type': 'application/json' } }), [413, -1]);
    // A megabyte streamed: the route stops reading at its limit.
    attack(`chunked megabyte ${r.method} ${r.path}`, await send(r.method, r.path, { user: r.user, chunks: Array.from({ length: 64 }, () => 'x'.repeat(16 * 1024)), headers: { 'content-type': 'application/json' } }), [413, -1]);
    // Content-Length and Transfer-Encoding together (request smuggling): Node's parser refuses the request.
    attack(`both framings ${r.method} ${r.path}`, await send(r.method, r.path, { user: r.user, chunks: ['{}'], headers: { 'content-type': 'application/json', 'content-length': '2', 'transfer-encoding': 'chunked' } }), [400, -1]);
  }
  // A Content-Length smaller than the body: only the declared bytes are the body (the rest is not a request of its own that passes).
  const lying = await send('POST', '/api/integration-keys', { user: 'northAdmin', body: `{"name":"a"}${' '.repeat(8000)}`, headers: { 'content-type': 'application/json', 'content-length': '5' } });
  attack('Content-Length shorter than the body', lying, [400, -1]);
});

test('compressed bodies: nothing inflates them; a gzip or deflate body is refused as an encoding the API does not take (a zip bomb costs nothing)', async () => {
  const bomb = gzipSync(Buffer.alloc(4 * 1024 * 1024, 0x20)); // 4 MiB of spaces in about 4 KiB
  const small = JSON.stringify({ name: 'zipped key' });
  for (const [label, body, encoding] of [
    ['gzip JSON', gzipSync(small), 'gzip'], ['deflate JSON', deflateSync(small), 'deflate'], ['gzip bomb', bomb.subarray(0, 4000), 'gzip'],
    ['br label on plain JSON', Buffer.from(small), 'br'], ['identity and gzip', gzipSync(small), 'identity, gzip'],
  ] as const) {
    attack(`${label} key`, await send('POST', '/api/integration-keys', { user: 'northAdmin', body, headers: { 'content-type': 'application/json', 'content-encoding': encoding } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    attack(`${label} login`, await send('POST', '/api/auth/login', { body, headers: { 'content-type': 'application/json', 'content-encoding': encoding } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  }
  // identity is no encoding at all.
  const plain = await send('POST', '/api/integration-keys', { user: 'northAdmin', body: small, headers: { 'content-type': 'application/json', 'content-encoding': 'identity' } });
  assert.is(plain.status, 201, plain.text);
  const keys = JSON.parse((await send('GET', '/api/integration-keys', { user: 'northAdmin' })).text) as { data: { name: string }[] };
  assert.equal(keys.data.map((k) => k.name), ['zipped key'], 'only the identity body made a key');
});

test('content types: only JSON (and its +json kin, any case, with parameters) is read; everything else is a 415 before any field is looked at', async () => {
  const body = JSON.stringify({ reason: 'x' });
  for (const type of ['text/plain', 'text/plain; charset=utf-8', 'application/json-patch', 'application/jsonp', 'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x', 'application/json, text/plain', 'text/json', 'application/xml', '', 'json']) {
    const headers: Record<string, string> = type === '' ? {} : { 'content-type': type };
    attack(`type "${type}" dismiss`, await send('POST', '/api/indicator-audit/findings/1/dismiss', { user: 'northAdmin', body, headers }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    attack(`type "${type}" login`, await send('POST', '/api/auth/login', { body, headers }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    attack(`type "${type}" feeder acknowledge (optional body)`, await send('POST', '/api/board/feeders/L1/acknowledge', { user: 'northAdmin', body: '{"class":"operations"}', headers }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  }
  // JSON's own forms pass the type check and reach the route's own rule (no finding 1: a 404).
  for (const type of ['APPLICATION/JSON', 'application/json;charset=UTF-8', 'application/json-patch+json', 'application/problem+json; x=y']) {
    attack(`type "${type}" reaches the route`, await send('POST', '/api/indicator-audit/findings/1/dismiss', { user: 'northAdmin', body, headers: { 'content-type': type } }), 404, 'NOT_FOUND');
  }
});

test('JSON shapes: deep nesting, large arrays, duplicate keys, prototype keys, NUL and lone surrogates: a 400 naming it, nothing stored elsewhere, no prototype touched', async () => {
  // As deep as the smallest limit (4 KiB) allows.
  const deepArray = '['.repeat(2000) + ']'.repeat(2000);
  const deepObject = '{"a":'.repeat(600) + '1' + '}'.repeat(600);
  for (const [label, text] of [['deep array', deepArray], ['deep object', deepObject], ['array body', '[1,2,3]'], ['null body', 'null'], ['string body', '"x"'], ['number body', '1e309'],
    ['truncated', '{"class":'], ['trailing garbage', '{"class":"operations"} x'], ['BOM then JSON', '\uFEFF{"class":"operations"}'], ['NaN', '{"minutes":NaN}']] as const) {
    attack(`${label} rule`, await send('PUT', '/api/alarm-rules/north-shape', { user: 'northAdmin', body: text, headers: { 'content-type': 'application/json' } }), 400, 'INVALID_BODY');
    attack(`${label} shelve`, await send('POST', '/api/alarms/1/shelve', { user: 'northAdmin', body: text, headers: { 'content-type': 'application/json' } }), 400, 'INVALID_BODY');
  }
  attack('huge causes array', await send('PUT', '/api/incident-causes', { user: 'northAdmin', json: { causes: Array.from({ length: 1000 }, (_, i) => `c${i}`) } }), 400, 'INVALID_BODY');
  // Duplicate keys: the last wins (JSON.parse), and the organisation check sees the one that wins.
  attack('duplicate OrganizationID, another organisation last', await send('PUT', '/api/alarm-rules/north-dup', {
    user: 'northAdmin', body: '{"OrganizationID":"north","OrganizationID":"south","class":"operations","what":["permanent"],"who":["north-desk"]}', headers: { 'content-type': 'application/json' },
  }), 403, 'FORBIDDEN');
  // Prototype keys are fields like any other: refused as unknown, never reaching Object.prototype or another organisation.
  for (const [label, text] of [
    ['__proto__ OrganizationID', '{"__proto__":{"OrganizationID":"south","polluted":true},"class":"operations","what":["permanent"],"who":["north-desk"]}'],
    ['constructor.prototype', '{"constructor":{"prototype":{"polluted":true}},"class":"operations","what":["permanent"],"who":["north-desk"]}'],
  ] as const) {
    attack(`${label} rule`, await send('PUT', '/api/alarm-rules/north-proto', { user: 'northAdmin', body: text, headers: { 'content-type': 'application/json' } }), 400, 'INVALID_BODY');
    attack(`${label} key`, await send('POST', '/api/integration-keys', { user: 'northAdmin', body: text.replace('"class"', '"name":"p","class"'), headers: { 'content-type': 'application/json' } }), 400, 'INVALID_BODY');
    attack(`${label} feeder acknowledge`, await send('POST', '/api/board/feeders/L1/acknowledge', { user: 'northAdmin', body: text, headers: { 'content-type': 'application/json' } }), 400, 'INVALID_BODY');
  }
  assert.is(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype untouched');
  const south = await api.db.pool.query('select id from alarm_rules where "OrganizationID" = $1 order by id', ['south']);
  assert.equal(south.rows.map((r: { id: string }) => r.id), ['south-faults'], 'nothing written into south');
  // Text Postgres cannot hold: NUL and a lone surrogate in every free-text field of a write body.
  for (const bad of ['a\u0000b', 'a\ud800b']) {
    const shown = JSON.stringify(bad);
    attack(`${shown} rule name`, await send('PUT', '/api/alarm-rules/north-text', { user: 'northAdmin', json: { name: bad, class: 'operations', what: ['permanent'], who: ['north-desk'] } }), 400, 'INVALID_BODY');
    attack(`${shown} recipient name`, await send('PUT', '/api/alarm-recipients/north-text', { user: 'northAdmin', json: { name: bad, channel: 'email', address: 'x@north.example' } }), 400, 'INVALID_BODY');
    attack(`${shown} recipient address`, await send('PUT', '/api/alarm-recipients/north-text', { user: 'northAdmin', json: { channel: 'email', address: `x${bad}@north.example` } }), 400, 'INVALID_BODY');
    attack(`${shown} key name`, await send('POST', '/api/integration-keys', { user: 'northAdmin', json: { name: bad } }), 400, 'INVALID_BODY');
    attack(`${shown} dismiss reason`, await send('POST', '/api/indicator-audit/findings/1/dismiss', { user: 'northAdmin', json: { reason: bad } }), 400, 'INVALID_BODY');
    attack(`${shown} login email`, await send('POST', '/api/auth/login', { json: { email: bad, password: 'x' } }), 400, 'INVALID_BODY');
    attack(`${shown} feeder class`, await send('POST', '/api/board/feeders/L1/acknowledge', { user: 'northAdmin', json: { class: bad } }), 400);
  }
});

test('path ids: only plain digits name a row; signs, unicode digits, 2^53+1, hex, exponents, NUL and encoded slashes are a 400 or no row, never a 5xx', async () => {
  for (const id of ['+1', '-1', '1.0', '1e3', '0x10', '%D9%A1', '%EF%BC%91', '9007199254740993', '1%2F..%2F..', '%00', '1%00', '%201', '1%20', 'NaN', 'Infinity']) {
    for (const [method, path] of [['POST', `/api/alarms/${id}/acknowledge`], ['POST', `/api/alarms/${id}/unshelve`], ['POST', `/api/alarm-deliveries/${id}/retry`]] as const) {
      attack(`${method} ${path}`, await send(method, path, { user: 'northAdmin' }), [400, 404]);
    }
    attack(`dismiss ${id}`, await send('POST', `/api/indicator-audit/findings/${id}/dismiss`, { user: 'northAdmin', json: { reason: 'x' } }), [400, 404]);
    attack(`cause ${id}`, await send('POST', `/api/incidents/${id}/cause`, { user: 'northAdmin', json: { cause: 'vegetation' } }), [400, 404]);
    attack(`rotate ${id}`, await send('POST', `/api/integration-keys/${id}/rotate`, { user: 'northAdmin' }), [400, 404]);
  }
  // Leading zeros name the same row (a number), never another organisation's.
  attack('leading zeros', await send('POST', '/api/alarms/0000001/acknowledge', { user: 'northAdmin' }), 404, 'NOT_FOUND');
  // Text ids (rules, recipients, feeders) with characters Postgres cannot hold or the URL hides.
  for (const id of ['%00', 'a%00b', '%2F', 'a%2Fb', '%2e%2e', 'x'.repeat(5000)]) {
    attack(`delete rule ${id.slice(0, 20)}`, await send('DELETE', `/api/alarm-rules/${id}`, { user: 'northAdmin' }), [400, 404]);
    attack(`delete recipient ${id.slice(0, 20)}`, await send('DELETE', `/api/alarm-recipients/${id}`, { user: 'northAdmin' }), [400, 404]);
    // A slash or dots are an id like any other (the path names it percent-encoded): only what cannot be stored is refused.
    if (id.includes('%00') || id.length > 100) attack(`put rule ${id.slice(0, 20)}`, await send('PUT', `/api/alarm-rules/${id}`, { user: 'northAdmin', json: { class: 'operations', what: ['permanent'], who: ['north-desk'] } }), 400);
    // A feeder that is no one's acknowledges nothing (200, an empty list); one that cannot be stored is a 400.
    const feeder = await send('POST', `/api/board/feeders/${id}/acknowledge`, { user: 'northEast' });
    attack(`feeder acknowledge ${id.slice(0, 20)}`, feeder, id.includes('%00') || id.length > 100 ? 400 : [200, 400, 404]);
    if (feeder.status === 200) assert.equal((JSON.parse(feeder.text) as { acknowledged: unknown[] }).acknowledged, [], 'nothing acknowledged');
  }
  const north = await api.db.pool.query('select id from alarm_rules where "OrganizationID" = $1 order by id', ['north']);
  assert.equal(north.rows.map((r: { id: string }) => r.id), ['north-faults'], 'no rule made under an odd id');
});

/** Every write entry of the alarm table and the others, as a concrete request. */
const WRITES: { method: string; path: string; json?: unknown; admin: boolean }[] = [
  { method: 'POST', path: '/api/alarms/1/acknowledge', admin: false },
  { method: 'POST', path: '/api/board/feeders/L1/acknowledge', admin: false },
  { method: 'POST', path: '/api/alarms/1/shelve', json: { minutes: 10 }, admin: false },
  { method: 'POST', path: '/api/alarms/1/unshelve', admin: false },
  { method: 'PUT', path: '/api/alarm-rules/north-faults', json: { class: 'operations', what: ['permanent'], who: ['north-desk'], enabled: false }, admin: true },
  { method: 'DELETE', path: '/api/alarm-rules/north-faults', admin: true },
  { method: 'PUT', path: '/api/alarm-recipients/north-desk', json: { channel: 'email', address: 'evil@north.example' }, admin: true },
  { method: 'DELETE', path: '/api/alarm-recipients/north-desk', admin: true },
  { method: 'POST', path: '/api/alarm-deliveries/1/retry', admin: true },
  { method: 'PUT', path: '/api/incident-causes', json: { causes: ['vegetation'] }, admin: true },
  { method: 'POST', path: '/api/incidents/1/cause', json: { cause: 'vegetation' }, admin: false },
  { method: 'POST', path: '/api/indicator-audit/findings/1/dismiss', json: { reason: 'x' }, admin: true },
  { method: 'POST', path: '/api/integration-keys', json: { name: 'evil' }, admin: true },
  { method: 'POST', path: '/api/integration-keys/0123456789abcdef/rotate', admin: true },
  { method: 'DELETE', path: '/api/integration-keys/0123456789abcdef', admin: true },
  { method: 'POST', path: '/api/test-faults', json: { imei: '861000000000000' }, admin: true },
];

test('guards: every write route refuses no token (401) and a user on an admin route (403), however it is reached; nothing changes', async () => {
  const before = await api.db.pool.query('select id, enabled from alarm_rules order by id');
  for (const w of WRITES) {
    attack(`no token ${w.method} ${w.path}`, await send(w.method, w.path, { json: w.json }), 401, 'UNAUTHENTICATED');
    if (w.admin) attack(`user ${w.method} ${w.path}`, await send(w.method, w.path, { user: 'northEast', json: w.json }), 403, 'FORBIDDEN');
    // Another way in: a trailing slash, a doubled slash, the path's case, another method, a method override.
    const variants: [string, string, Record<string, string>][] = [
      [w.method, `${w.path}/`, {}], [w.method, w.path.replace('/api/', '//api/'), {}], [w.method, w.path.toUpperCase(), {}],
      ['PATCH', w.path, {}], ['GET', w.path, {}], ['HEAD', w.path, {}], ['OPTIONS', w.path, {}],
      ['GET', w.path, { 'x-http-method-override': w.method }], ['POST', w.path, { 'x-http-method-override': w.method, 'x-http-method': w.method }],
    ];
    for (const [method, path, headers] of variants) {
      if (method === w.method && path === w.path) continue;
      const user: UserName = w.admin ? 'northEast' : 'southEast';
      const read = method === 'GET' || method === 'HEAD';
      const a = await send(method, path, { user, json: read ? undefined : w.json, headers });
      // A GET may be the path's own read route (the causes list): it answers, and writes nothing (checked below).
      attack(`${method} ${path} ${JSON.stringify(headers)}`, a, read && path === w.path ? [200, 401, 403, 404, 405] : [401, 403, 404, 405]);
    }
  }
  assert.equal((await api.db.pool.query('select id, enabled from alarm_rules order by id')).rows, before.rows, 'no rule changed or deleted');
  assert.is((await api.db.pool.query('select count(*)::int as n from integration_keys')).rows[0].n, 1, 'no key made');
});

test("another organisation's rows: invisible to a write, never taken over", async () => {
  attack('delete south rule', await send('DELETE', '/api/alarm-rules/south-faults', { user: 'northAdmin' }), 404, 'NOT_FOUND');
  attack('delete south recipient', await send('DELETE', '/api/alarm-recipients/south-desk', { user: 'northAdmin' }), [404, 409]);
  attack('take over south rule', await send('PUT', '/api/alarm-rules/south-faults', { user: 'northAdmin', json: { class: 'operations', what: ['permanent'], who: ['north-desk'] } }), 409, 'CONFLICT');
  attack('take over south recipient', await send('PUT', '/api/alarm-recipients/south-desk', { user: 'northAdmin', json: { channel: 'email', address: 'evil@north.example' } }), 409, 'CONFLICT');
  const south = await api.db.pool.query('select id from alarm_rules where "OrganizationID" = $1', ['south']);
  assert.is(south.rowCount, 1, "south's rule stands");
});

test('read-side kit: If-None-Match lists and *, format=csv where no CSV is offered', async () => {
  const board = await send('GET', '/api/board', { user: 'northEast' });
  assert.is(board.status, 200, board.text);
  const etag = String(board.headers.etag);
  for (const [label, value, status] of [['star', '*', 304], ['list', `"nope", ${etag}`, 304], ['weak', `W/${etag}`, 304], ['other', '"nope"', 200], ['garbage', ',,,', 200]] as const) {
    tried++;
    const a = await send('GET', '/api/board', { user: 'northEast', headers: { 'if-none-match': value } });
    assert.is(a.status, status, `If-None-Match ${label}`);
    refused++;
  }
  for (const path of ['/api/board?format=csv', '/api/alarms?format=csv', '/api/alarm-rules?format=csv', '/api/incident-causes?format=csv', '/api/indicator-audit/findings?format=csv', '/api/integration-keys?format=csv']) {
    const a = await send('GET', path, { user: 'northAdmin' });
    attack(`format=csv ${path}`, a, 400);
    assert.match(a.text, /"format"/, `${path}: the 400 names the parameter`);
  }
});

test('NUL and a lone surrogate in every parameter of every read route the document lists: never a 5xx', async () => {
  type Param = { name: string; in: string };
  const doc = openApiDocument({ codeStrings: loadCodeStrings() }) as { paths: Record<string, Record<string, { parameters?: Param[] }>> };
  const fill = (path: string) => path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'imei' ? '861000000000000' : '1'));
  const failed: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const params = item.get?.parameters ?? [];
    for (const p of params.filter((x) => x.in === 'path' || x.in === 'query')) {
      for (const bad of ['%00', 'a%00b', '%ED%A0%80']) {
        const url = p.in === 'path' ? fill(path.replace(`{${p.name}}`, bad)) : `${fill(path)}?${encodeURIComponent(p.name)}=${bad}`;
        const a = await send('GET', url, { user: 'northAdmin' });
        tried++;
        if (a.status >= 500 || SQL_OR_STACK.test(a.text) && a.status >= 300) failed.push(`${url} ${a.status}`); else refused++;
      }
    }
  }
  // Every route named at once, so a fix sees the whole list.
  assert.equal(failed, [], 'no 5xx, SQL or stack');
});

test('the OpenAPI document says what each write route takes: every path parameter, and the 413/415 of each body', () => {
  const doc = openApiDocument({ codeStrings: loadCodeStrings() }) as { paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; responses: Record<string, unknown>; requestBody?: unknown }>> };
  for (const e of WRITE_ENDPOINTS) {
    const path = e.path.replace(/:(\w+)/g, '{$1}');
    const op = doc.paths[path]?.[e.method];
    assert.ok(op, `${e.method} ${path} is documented`);
    for (const [, name] of e.path.matchAll(/:(\w+)/g)) assert.ok(op!.parameters?.some((p) => p.in === 'path' && p.name === name), `${e.method} ${path} documents {${name}}`);
    if (e.body) for (const s of ['400', '413', '415']) assert.ok(op!.responses[s], `${e.method} ${path} documents ${s}`);
  }
});

test.run();
