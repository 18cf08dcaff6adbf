// The OpenAPI document against the real app: every route the app serves is documented, every documented
// operation is served, and the read endpoints document exactly the parameters they accept.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { createApp } from '../../api/app.js';
import { READ_ENDPOINTS, READ_PREFIXES } from '../../api/device-records/endpoints.js';
import { openApiPath, UNDOCUMENTED_PREFIXES } from '../../api/openapi/document.js';

// Never connected: building the app and serving /openapi.json touch no database.
const pool = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none' });
// The web portal's static files (GET *, portal-static.ts) are pages, not JSON endpoints: not documented.
const app = createApp({ readiness: {}, pool, jwtSecret: new Uint8Array(32), portalDir: null });
type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
let doc: Obj;

test.before(async () => {
  const res = await app.request('/openapi.json');
  assert.is(res.status, 200);
  doc = (await res.json()) as Obj;
});
test.after(() => pool.end());

const isSoap = (path: string) => UNDOCUMENTED_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
const served = () => new Set(app.routes.filter((r) => r.method !== 'ALL' && !isSoap(r.path)).map((r) => `${r.method.toLowerCase()} ${openApiPath(r.path)}`));
const documented = () => new Set(Object.entries(doc.paths as Obj).flatMap(([path, item]) => Object.keys(item as Obj).map((m) => `${m} ${path}`)));

test('OpenAPI 3.1 with a bearer scheme', () => {
  assert.is(doc.openapi, '3.1.0');
  assert.equal(doc.components.securitySchemes.bearerAuth, { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
});

test('every served route is documented', () => {
  const docs = documented();
  const missing = [...served()].filter((r) => !docs.has(r));
  assert.equal(missing, []);
});

test('every documented operation is served', () => {
  const routes = served();
  const extra = [...documented()].filter((r) => !routes.has(r));
  assert.equal(extra, []);
});

test('only the SOAP routes are left out, and they are served', () => {
  const soap = app.routes.filter((r) => r.method !== 'ALL' && isSoap(r.path));
  assert.ok(soap.some((r) => r.method === 'GET' && r.path === '/soap/wsdl'), 'GET /soap/wsdl is served');
  assert.not.ok(Object.keys(doc.paths as Obj).some(isSoap), 'and not in the document');
});

test('all ten spec 4.2 paths, under /device-records and /api/device-records', () => {
  const spec = ['/get-table-columns', '/critical-data', '/map-data', '/data-log', '/all-devices', '/device-summary',
    '/device-information/{imei}', '/device-information/data-log/{imei}', '/device-information/events/{imei}', '/device-information/load-history/{imei}'];
  for (const prefix of READ_PREFIXES) for (const p of spec) assert.ok(doc.paths[prefix + p]?.get, prefix + p);
});

test('read endpoints document exactly the parameters they accept, and their errors', () => {
  for (const e of READ_ENDPOINTS) {
    for (const prefix of READ_PREFIXES) {
      const op = doc.paths[openApiPath(prefix + e.path)].get as Obj;
      const names = (op.parameters as Obj[]).filter((p) => p.in === 'query').map((p) => p.name);
      assert.equal(names, [...e.params.accepts], e.path);
      assert.ok(op.responses[400] && op.responses[401], `${e.path} documents 400 and 401`);
      assert.is(Boolean(op.responses[404]), e.path.includes(':imei'), `${e.path} documents 404 iff it has an IMEI`);
      assert.equal(op.security, [{ bearerAuth: [] }]);
    }
  }
});

test('every $ref resolves and operation ids are unique', () => {
  const refs: string[] = [];
  JSON.stringify(doc, (key, value: unknown) => {
    if (key === '$ref') refs.push(value as string);
    return value;
  });
  for (const r of refs) assert.ok(doc.components.schemas[r.replace('#/components/schemas/', '')], r);
  const ids = Object.values(doc.paths as Obj).flatMap((item) => Object.values(item as Obj).map((op) => (op as Obj).operationId));
  assert.is(new Set(ids).size, ids.length);
});

test.run();
