// Masking holds on every reader by construction (issue 28; docs/decisions.md#masking). The walk reads the
// running app's own /openapi.json and calls every GET operation in it (path parameters from the seeded data,
// every enum value of its query parameters) as the masked organisation's admin and as its group user, over
// data that holds every fault class, alarm kind and incident kind (every-class.ts). It fails if a class word
// or code appears in any answer. The same walk with the mask off must show those words first, so the walk
// cannot pass by reading nothing. A GET route the document leaves out fails the last test, so no route hides.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Hono } from 'hono';
import { gunzipSync } from 'node:zlib';
import { createApp } from '../../../api/app.js';
import { UNDOCUMENTED_PREFIXES, openApiPath } from '../../../api/openapi/document.js';
import { integrationOutputPaths } from '../../../api/auth/require-auth.js';
import { FAULT_CLASS_KINDS } from '../../../domain/alarm-kinds.js';
import { FAULT_EVENT_TYPES, isFaultEventType } from '../../../domain/fault-events.js';
import { TYPE_SHAPED_FIELDS } from '../../../domain/fault-masking.js';
import { INCIDENT_KINDS } from '../../../domain/incident-rules.js';
import { SERVED_OPERATIONS } from '../../../api/soap/operations.js';
import { NAMESPACE } from '../../../multispeak/versions.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { JWT_SECRET } from '../api/seeded-api.js';
import { classWordsIn, MASKED_ORG, MASKED_USERS, seedEveryClass, setMasked } from './every-class.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
let db: TestDatabase;
let app: Hono;
/** The routes that say they are an integration output (their route option), walked from the app. */
let UNMASKED_INTEGRATION_PATHS: string[] = [];
let doc: Obj;
const tokens: Record<string, string> = {};

/** Fields that hold a code or its text: a masked reader sees only these values in them. */
const CODE_FIELDS = new Set(['Ongoing_fault', 'ActualOngoingFault', 'FaultType', 'codeText', 'ReportedOngoingFault']);
const MASKED_VALUES = new Set(['None', 'Fault', null]);

function codeFieldProblems(value: unknown, at = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => codeFieldProblems(v, `${at}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => (CODE_FIELDS.has(k) && !MASKED_VALUES.has(v as string | null) && !(typeof v === 'object' && v !== null)
    ? [`${at}.${k} = ${JSON.stringify(v)}`]
    : codeFieldProblems(v, `${at}.${k}`)));
}

/** Every object of an answer whose EventType (or eventType) is `type`. */
function eventsOf(value: unknown, type: (t: unknown) => boolean): Obj[] {
  if (Array.isArray(value)) return value.flatMap((v) => eventsOf(v, type));
  if (value === null || typeof value !== 'object') return [];
  const o = value as Obj;
  return [...(type(o.EventType ?? o.eventType) ? [o] : []), ...Object.values(o).flatMap((v) => eventsOf(v, type))];
}
const jsonOf = (a: { type: string; text: string }): unknown => (/json/.test(a.type) ? JSON.parse(a.text) : null);

/** The texts an answer shows: every string value of JSON (field names are the schema, the same for all), else the body. */
function textsOf(a: { type: string; text: string }): string[] {
  if (!/json/.test(a.type)) return [a.text];
  const out: string[] = [];
  JSON.stringify(JSON.parse(a.text), (_k, v: unknown) => { if (typeof v === 'string') out.push(v); return v; });
  return out;
}

async function login(user: { email: string; password: string }): Promise<string> {
  const res = await app.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(user) });
  assert.is(res.status, 200);
  return ((await res.json()) as { accessToken: string }).accessToken;
}

/** Values of a path parameter, from the seeded data; a new parameter must say where its values come from. */
async function pathValues(path: string, name: string): Promise<string[]> {
  const q = async (sql: string) => (await db.pool.query<{ v: string }>(sql, [MASKED_ORG])).rows.map((r) => String(r.v));
  if (name === 'imei') return q('select "IMEINumber" as v from device_information where "OrganizationID" = $1 and deleted_at is null order by 1');
  if (name === 'id' && path.startsWith('/api/incidents/')) return q('select id as v from incidents where "OrganizationID" = $1 order by 1');
  if (name === 'id' && path.startsWith('/api/test-faults/')) return q('select id as v from test_faults where "OrganizationID" = $1 order by 1');
  throw new Error(`the walk does not know where values of path parameter "${name}" of ${path} come from: add them to pathValues`);
}

const today = new Date().toISOString().slice(0, 10).replaceAll('-', '');

/** Every URL of one GET operation: each path parameter value, and the query as given plus each enum value. */
async function urlsOf(path: string, op: Obj): Promise<string[]> {
  const params = (op.parameters ?? []) as Obj[];
  const query = params.filter((p) => p.in === 'query');
  const base = new URLSearchParams();
  if (query.some((p) => p.name === 'from')) base.set('from', '20260101');
  if (query.some((p) => p.name === 'to')) base.set('to', today);
  const limit = query.find((p) => p.name === 'limit')?.schema?.maximum as number | undefined;
  if (limit) base.set('limit', String(limit));
  const variants = [base];
  for (const p of query) {
    for (const v of (p.schema?.enum ?? []) as unknown[]) {
      const q = new URLSearchParams(base);
      q.set(p.name as string, String(v));
      variants.push(q);
    }
  }
  let paths = [path];
  for (const p of params.filter((x) => x.in === 'path')) {
    const values = await pathValues(path, p.name as string);
    assert.ok(values.length > 0, `the seeded data has a value for {${p.name}} of ${path}`);
    paths = paths.flatMap((x) => values.map((v) => x.replace(`{${p.name}}`, encodeURIComponent(v))));
  }
  return paths.flatMap((p) => variants.map((q) => (q.size ? `${p}?${q}` : p)));
}

const isAuthenticated = (op: Obj) => ((op.security ?? doc.security ?? []) as Obj[]).some((s) => 'bearerAuth' in s);

interface Answer { url: string; status: number; type: string; text: string }

async function walk(token: string): Promise<Answer[]> {
  const out: Answer[] = [];
  for (const [path, item] of Object.entries(doc.paths as Obj)) {
    if (!item.get || !isAuthenticated(item.get as Obj)) continue;
    for (const url of await urlsOf(path, item.get as Obj)) {
      const res = await app.request(url, { headers: { authorization: `Bearer ${token}` } });
      out.push({ url, status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() });
    }
  }
  return out;
}

test.before(async () => {
  db = await createTestDatabase('mask_walk');
  // With an IEC 104 station, so its commissioning outputs answer (without one they are a 404).
  await seedEveryClass(db).catch((err: unknown) => { console.error(err); throw err; });
  // accountCacheMs 0: the organisation's MaskFaultDetails is read on every request, so the walks can switch it.
  app = createApp({ readiness: {}, pool: db.pool, jwtSecret: JWT_SECRET, portalDir: null, accountCacheMs: 0 });
  UNMASKED_INTEGRATION_PATHS = integrationOutputPaths(app);
  doc = (await (await app.request('/openapi.json')).json()) as Obj;
  tokens.admin = await login(MASKED_USERS.admin);
  tokens.groupUser = await login(MASKED_USERS.groupUser);
});
test.after(async () => { await db?.drop(); });

test('unmasked, the same walk shows every class: the data holds what the masked walk must hide', async () => {
  await setMasked(db, false);
  const answers = await walk(tokens.admin!);
  for (const a of answers) assert.ok(a.status < 300, `${a.url}: ${a.status} ${a.text.slice(0, 200)}`);
  const all = answers.flatMap(textsOf).join('\n');
  const seen = new Set(classWordsIn(all).map((w) => w.toLowerCase()));
  for (const w of [...FAULT_EVENT_TYPES, 'Permanent', 'Temporary', 'momentary', ...FAULT_CLASS_KINDS]) assert.ok(seen.has(w.toLowerCase()), `the unmasked walk shows "${w}"`);
  const alarms = JSON.parse(answers.find((a) => a.url.startsWith('/api/alarms?') && a.url.includes('state=all'))!.text) as { data: { kind: string }[] };
  for (const k of FAULT_CLASS_KINDS) assert.ok(alarms.data.some((a) => a.kind === k), `an alarm of kind ${k}`);
  const incidents = JSON.parse(answers.find((a) => a.url === '/api/incidents')!.text) as { data: { kind: string }[] };
  for (const k of INCIDENT_KINDS) assert.ok(incidents.data.some((i) => i.kind === k), `an incident of kind ${k}`);
  assert.ok(answers.some((a) => a.text.includes('"what":["permanent"')), 'a stored rule names classes');
  // Spec 3.4 shapes some fields by type (SOTF clears RecoverCurrent): the data shows both, so the masked walk's
  // same-null-fields check can fail.
  const events = answers.flatMap((a) => eventsOf(jsonOf(a), isFaultEventType));
  assert.ok(events.some((e) => e.EventType === 'SOTF' && e.RecoverCurrent === ''), 'an SOTF event with RecoverCurrent cleared');
  assert.ok(events.some((e) => e.EventType !== 'SOTF' && typeof e.RecoverCurrent === 'number'), 'another fault event with a RecoverCurrent');
  console.log(`unmasked walk: ${answers.length} answers, class words seen: ${[...seen].sort().join(', ')}`);
});

for (const who of ['admin', 'groupUser'] as const) {
  test(`masked ${who}: no answer of any documented GET route names a fault class, under any field`, async () => {
    await setMasked(db, true);
    // The integration outputs included: a person's login reads them masked (only an integration key reads them
    // unmasked: test/security/integration-keys.test.ts).
    const answers = await walk(tokens[who]!);
    assert.ok(answers.length > 100, `${answers.length} answers`);
    const leaks: string[] = [];
    for (const a of answers) {
      if (who === 'admin') assert.ok(a.status < 300, `${a.url}: ${a.status} ${a.text.slice(0, 200)}`);
      else assert.ok(a.status < 300 || a.status === 403 || a.status === 404, `${a.url}: ${a.status}`);
      const words = [...new Set(textsOf(a).flatMap(classWordsIn))];
      if (words.length) leaks.push(`${a.url}: ${words.join(', ')}`);
      if (/json/.test(a.type)) leaks.push(...codeFieldProblems(JSON.parse(a.text)).map((p) => `${a.url}: ${p}`));
    }
    assert.equal(leaks.slice(0, 30), [], `${leaks.length} leaks`);
    // Every fault event carries the same null fields whatever its class (issue 41 finding 8: SOTF alone had RecoverCurrent null).
    const events = answers.flatMap((a) => eventsOf(jsonOf(a), (t) => t === 'Fault'));
    if (who === 'admin') assert.ok(events.length > 10, `${events.length} fault events read`);
    const shaped = events.flatMap((e) => [...TYPE_SHAPED_FIELDS].filter((k) => k in e && e[k] !== null).map((k) => `${k} = ${JSON.stringify(e[k])}`));
    assert.equal(shaped.slice(0, 10), [], `${shaped.length} fault events with a type-shaped field not null`);
    // Rules named classes; the masked organisation reads them as the one `fault` kind, and it is offered that kind.
    if (who === 'admin') {
      const rules = JSON.parse(answers.find((a) => a.url === '/api/alarm-rules')!.text) as { data: { what: string[] }[] };
      assert.equal(rules.data.find((r) => r.what.includes('fault'))?.what, ['fault', 'low-battery']);
      const kinds = JSON.parse(answers.find((a) => a.url === '/api/alarm-kinds')!.text) as { data: { id: string }[] };
      assert.equal(kinds.data.filter((k) => k.id === 'fault').length, 1);
    }
  });
}

// The SOAP operations a portal login may call (MultiSpeak stays unmasked by decision, but none of these may
// name a class to a masked organisation's login either): every one, read from the list the endpoint serves.
test('masked logins: no SOAP operation the endpoint serves names a fault class', async () => {
  await setMasked(db, true);
  for (const [who, user] of Object.entries(MASKED_USERS)) {
    for (const operation of SERVED_OPERATIONS) {
      const body = `<?xml version="1.0"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:m="${NAMESPACE['4.1']}">`
        + `<soap:Header><m:MultiSpeakMsgHeader MajorVersion="4" MinorVersion="1" BuildString="Release" UserID="${user.email}" Pwd="${user.password}"/></soap:Header>`
        + `<soap:Body><m:${operation}></m:${operation}></soap:Body></soap:Envelope>`;
      const res = await app.request('/soap', { method: 'POST', headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${operation}"` }, body });
      const text = await res.text();
      assert.is(res.status, 200, `${who} ${operation}: ${text.slice(0, 200)}`);
      assert.equal(classWordsIn(text), [], `${who} ${operation}`);
    }
  }
});

test('the outputs an integration key reads unmasked are the SCADA integrations\' (DNP3, IEC 104), documented, and not a user\'s', async () => {
  await setMasked(db, true);
  for (const path of UNMASKED_INTEGRATION_PATHS) {
    assert.ok(doc.paths[path]?.get, `${path} is documented`);
    assert.ok((doc.paths[path].get.security as Obj[]).some((s) => 'integrationKey' in s), `${path} takes an integration key`);
    assert.match(path, /^\/api\/(dnp3|iec104)\//);
    const res = await app.request(path, { headers: { authorization: `Bearer ${tokens.groupUser}` } });
    assert.is(res.status, 403, path);
  }
  const keyed = Object.entries(doc.paths as Obj).filter(([, item]) => Object.values(item as Obj).some((op) => ((op as Obj).security ?? []).some((s: Obj) => 'integrationKey' in s))).map(([p]) => p);
  assert.equal(keyed.sort(), [...UNMASKED_INTEGRATION_PATHS].sort(), 'no other operation takes a key');
});

test('a masked caller\'s query that names a class is a 400 naming the parameter, on any route', async () => {
  await setMasked(db, true);
  for (const url of ['/api/alarms?state=permanent', '/api/incidents?status=momentary', '/device-records/data-log?filterBy[EventType]=PFault', '/api/device-records/all-devices?sortBy={"field":"ActualOngoingFault"}']) {
    const res = await app.request(url, { headers: { authorization: `Bearer ${tokens.admin}` } });
    assert.is(res.status, 400, url);
    const body = (await res.json()) as { error: { message: string; details: { parameter: string } } };
    assert.match(body.error.message, 'masks fault details', url);
  }
});

test('the GET operations the walk leaves out answer without a token: no caller, no organisation\'s data', async () => {
  const open = Object.entries(doc.paths as Obj).filter(([, item]) => item.get && !isAuthenticated(item.get as Obj)).map(([p]) => p);
  for (const path of open) assert.ok((await app.request(path)).status < 300, path);
  assert.ok(open.length < Object.keys(doc.paths as Obj).length / 4, `few public operations: ${open.join(', ')}`);
});

test('a masked fleet answer (map-data) gzip-encoded and with an ETag: masked inside the gzip, its ETag made of the masked bytes', async () => {
  const get = (headers: Record<string, string>) => app.request('/api/device-records/map-data', { headers: { authorization: `Bearer ${tokens.admin}`, ...headers } });
  await setMasked(db, false);
  const unmaskedEtag = (await get({})).headers.get('etag');
  await setMasked(db, true);
  const res = await get({ 'accept-encoding': 'gzip' });
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-encoding'), 'gzip');
  const text = gunzipSync(Buffer.from(await res.arrayBuffer())).toString('utf8');
  assert.equal(classWordsIn(text), []);
  assert.ok(text.includes('"ActualOngoingFault":"Fault"'), 'faults are there, as Fault');
  const etag = res.headers.get('etag')!;
  assert.ok(etag && etag !== unmaskedEtag, `the ETag ${etag} is not the unmasked answer's ${unmaskedEtag}`);
  assert.is((await get({ 'if-none-match': etag })).status, 304);
  // The masked answer is kept by the unmasked bytes' ETag: the next poll gets the same bytes, masked.
  const again = await get({ 'accept-encoding': 'gzip' });
  assert.is(again.headers.get('etag'), etag);
  assert.is(gunzipSync(Buffer.from(await again.arrayBuffer())).toString('utf8'), text);
});

test('no route hides from the walk: every GET route the app serves is in the document', () => {
  const isSoap = (p: string) => UNDOCUMENTED_PREFIXES.some((prefix) => p === prefix || p.startsWith(`${prefix}/`));
  const served = new Set(app.routes.filter((r) => r.method === 'GET' && !isSoap(r.path)).map((r) => openApiPath(r.path)));
  const documented = new Set(Object.entries(doc.paths as Obj).filter(([, item]) => item.get).map(([p]) => p));
  assert.equal([...served].filter((p) => !documented.has(p)), [], 'served but not documented');
  assert.equal([...documented].filter((p) => !served.has(p)), [], 'documented but not served');
});

test.run();
