// The OpenAPI document comes from endpoint tables (docs/decisions.md#write-endpoints,
// docs/decisions.md#read-endpoint-tables): no file of api/ writes a path item or an operation by hand (each
// route is an entry of a table, which registers the route and describes it), every route the app registers is
// such an entry, and every route it registers is in the document. Each rule is shown failing on a fixture.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { createApp } from '../../api/app.js';
import { openApiDocument, UNDOCUMENTED_PREFIXES } from '../../api/openapi/document.js';
import { WRITE_ENDPOINTS } from '../../api/openapi/write-endpoints.js';
import { READ_ROUTES, SERVICE_READS } from '../../api/openapi/read-routes.js';
import { READ_ENDPOINTS, READ_PREFIXES } from '../../api/device-records/endpoints.js';
import { FLEET_ENDPOINTS } from '../../api/fleet/endpoints.js';
import { loadCodeStrings } from '../../api/device-records/code-strings-file.js';
import { read, tsFiles } from './api-routers.js';
import { handWrittenPaths, handWrittenReads, handWrittenWrites, readsOutsideTables, undocumented, writesOutsideTables, type Route } from './openapi-paths.js';

const test = suite('openapi paths');
const root = new URL('../..', import.meta.url).pathname;
const files = tsFiles(root, 'api').filter((f) => !f.startsWith('api/soap/'));
// Never connected: building the app touches no database.
const pool = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none' });
const app = createApp({ readiness: {}, pool, jwtSecret: new Uint8Array(32), portalDir: null });
const isSoap = (path: string) => UNDOCUMENTED_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
const routes: Route[] = app.routes.filter((r) => r.method !== 'ALL' && !isSoap(r.path));
test.after(() => pool.end());

/** Every GET of the read tables: the other reads, the service's own, and the device-records and fleet pages where they are mounted. */
const READ_TABLE: Route[] = [
  ...[...READ_ROUTES, ...SERVICE_READS].map((e) => ({ method: 'GET', path: e.path })),
  ...READ_PREFIXES.flatMap((prefix) => READ_ENDPOINTS.map((e) => ({ method: 'GET', path: prefix + e.path }))),
  ...FLEET_ENDPOINTS.map((e) => ({ method: 'GET', path: e.path })),
];

test('no file of api/ writes an OpenAPI path item or operation by hand, of any method', () => {
  const writing = files.map((f) => ({ f, ops: handWrittenPaths(read(root, f)) })).filter((x) => x.ops.length > 0);
  assert.equal(writing.map((x) => `${x.f}: ${x.ops.join(' ')}`), [], 'describe the route with an endpoint entry (api/read-route.ts, api/write-endpoint.ts)');
});

test('the rule fails on a capability that describes its routes by hand (fixtures), not on a comment', () => {
  const writes = read(root, 'test/fixtures/structure/hand-written-write.ts.txt');
  assert.equal(handWrittenWrites(writes), ['post: {', 'delete: {']);
  assert.equal(handWrittenReads(writes), ['get: {']);
  assert.equal(handWrittenPaths(writes), ["'/api/widgets/{id}': {", 'get: {', 'post: {', 'delete: {']);
  const reads = read(root, 'test/fixtures/structure/hand-written-read.ts.txt');
  assert.equal(handWrittenPaths(reads), ['[WIDGETS_PATH]: {', "'/api/widget-settings': {", 'get: {', 'get: {']);
  assert.equal(handWrittenPaths('// get: { is how it was written'), []);
  assert.equal(handWrittenPaths("const where = { path: '/api/widgets', summary: 'The widgets' };"), [], 'an entry naming its path is not a path item');
});

test('every mutating route the app registers is an entry of a write endpoint table, and every entry is registered', () => {
  assert.ok(routes.some((r) => r.method === 'POST'), 'the routes were enumerated');
  assert.equal(writesOutsideTables(routes, WRITE_ENDPOINTS), []);
  const registered = new Set(routes.map((r) => `${r.method.toLowerCase()} ${r.path}`));
  assert.equal(WRITE_ENDPOINTS.filter((e) => !registered.has(`${e.method} ${e.path}`)).map((e) => `${e.method} ${e.path}`), []);
});

test('every GET the app registers is an entry of a read table, and every entry is registered', () => {
  assert.ok(routes.some((r) => r.method === 'GET'), 'the routes were enumerated');
  assert.equal(readsOutsideTables(routes, READ_TABLE), []);
  const registered = new Set(routes.map((r) => `${r.method} ${r.path}`));
  assert.equal(READ_TABLE.filter((e) => !registered.has(`GET ${e.path}`)).map((e) => `GET ${e.path}`), []);
});

test('every route the app registers is in the document', () => {
  const doc = openApiDocument({ codeStrings: loadCodeStrings() }) as { paths: Record<string, Record<string, unknown>> };
  assert.equal(undocumented(routes, doc.paths), []);
});

test('the rules fail on a route left out (fixture): of the document, and of the tables', () => {
  const extra: Route = { method: 'POST', path: '/api/widgets/:id/poke' };
  const extraRead: Route = { method: 'GET', path: '/api/widgets/:id' };
  const doc = openApiDocument({ codeStrings: loadCodeStrings() }) as { paths: Record<string, Record<string, unknown>> };
  assert.equal(undocumented([...routes, extra, extraRead], doc.paths), ['post /api/widgets/{id}/poke', 'get /api/widgets/{id}']);
  assert.equal(writesOutsideTables([...routes, extra], WRITE_ENDPOINTS), ['post /api/widgets/{id}/poke']);
  assert.equal(readsOutsideTables([...routes, extraRead], READ_TABLE), ['get /api/widgets/{id}']);
});

test.run();
