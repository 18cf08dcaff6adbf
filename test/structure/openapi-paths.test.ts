// The OpenAPI document comes from endpoint tables (docs/decisions.md#write-endpoints): no file of api/ writes
// the operation of a POST, PUT, PATCH or DELETE by hand (each is an entry of a write endpoint table, which
// registers the route and describes it), every mutating route the app registers is such an entry, and every
// route it registers is in the document. Each rule is shown failing on a fixture.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { createApp } from '../../api/app.js';
import { openApiDocument, UNDOCUMENTED_PREFIXES } from '../../api/openapi/document.js';
import { WRITE_ENDPOINTS } from '../../api/openapi/write-endpoints.js';
import { loadCodeStrings } from '../../api/device-records/code-strings-file.js';
import { read, tsFiles } from './api-routers.js';
import { handWrittenReads, handWrittenWrites, undocumented, writesOutsideTables, type Route } from './openapi-paths.js';

const test = suite('openapi paths');
const root = new URL('../..', import.meta.url).pathname;
const files = tsFiles(root, 'api').filter((f) => !f.startsWith('api/soap/'));
// Never connected: building the app touches no database.
const pool = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none' });
const app = createApp({ readiness: {}, pool, jwtSecret: new Uint8Array(32), portalDir: null });
const isSoap = (path: string) => UNDOCUMENTED_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
const routes: Route[] = app.routes.filter((r) => r.method !== 'ALL' && !isSoap(r.path));
test.after(() => pool.end());

/**
 * The files that still describe GET routes by hand (not yet ReadEndpoint entries): the list may only shrink.
 * A new read route is described by an endpoint entry, not added here.
 */
const HAND_WRITTEN_READS = [
  'api/board/openapi.ts', 'api/deenergised-sections/openapi.ts', 'api/incidents/cause-openapi.ts', 'api/incidents/openapi.ts',
  'api/indicator-audit/openapi.ts', 'api/openapi/alarm-paths.ts', 'api/openapi/commissioning.ts', 'api/openapi/document.ts',
  'api/openapi/iec104-commissioning.ts', 'api/openapi/iec104-diagnostics.ts', 'api/openapi/integration-keys.ts',
  'api/portal-settings.ts', 'api/reliability/export-openapi.ts', 'api/reliability/openapi.ts',
];

test('no file of api/ writes a POST, PUT, PATCH or DELETE operation by hand', () => {
  const writing = files.map((f) => ({ f, ops: handWrittenWrites(read(root, f)) })).filter((x) => x.ops.length > 0);
  assert.equal(writing.map((x) => `${x.f}: ${x.ops.join(' ')}`), []);
});

test('the rule fails on a capability that describes its POST and DELETE by hand (fixture), not on a comment', () => {
  const fixture = read(root, 'test/fixtures/structure/hand-written-write.ts.txt');
  assert.equal(handWrittenWrites(fixture), ['post: {', 'delete: {']);
  assert.equal(handWrittenReads(fixture), ['get: {']);
  assert.equal(handWrittenWrites('// post: { is how it was written'), []);
});

test('hand-written GET operations stay in the files listed, and the list holds no file that has none', () => {
  const reading = files.filter((f) => handWrittenReads(read(root, f)).length > 0).sort();
  assert.equal(reading.filter((f) => !HAND_WRITTEN_READS.includes(f)), [], 'a new hand-written GET: describe it with an endpoint entry');
  assert.equal(HAND_WRITTEN_READS.filter((f) => !reading.includes(f)), [], 'a file no longer describes a GET by hand: take it off the list');
});

test('every mutating route the app registers is an entry of a write endpoint table, and every entry is registered', () => {
  assert.ok(routes.some((r) => r.method === 'POST'), 'the routes were enumerated');
  assert.equal(writesOutsideTables(routes, WRITE_ENDPOINTS), []);
  const registered = new Set(routes.map((r) => `${r.method.toLowerCase()} ${r.path}`));
  assert.equal(WRITE_ENDPOINTS.filter((e) => !registered.has(`${e.method} ${e.path}`)).map((e) => `${e.method} ${e.path}`), []);
});

test('every route the app registers is in the document', () => {
  const doc = openApiDocument({ codeStrings: loadCodeStrings() }) as { paths: Record<string, Record<string, unknown>> };
  assert.equal(undocumented(routes, doc.paths), []);
});

test('the rules fail on a route left out (fixture): of the document, and of the tables', () => {
  const extra: Route = { method: 'POST', path: '/api/widgets/:id/poke' };
  const doc = openApiDocument({ codeStrings: loadCodeStrings() }) as { paths: Record<string, Record<string, unknown>> };
  assert.equal(undocumented([...routes, extra], doc.paths), ['post /api/widgets/{id}/poke']);
  assert.equal(writesOutsideTables([...routes, extra], WRITE_ENDPOINTS), ['post /api/widgets/{id}/poke']);
});

test.run();
