// The committed contract is the served one: docs/openapi.json equals what GET /openapi.json answers on the
// real app (the public port, and METRICS_PORT's ops app), and docs/api-reference.md is rendered from it.
// test/api/openapi.test.ts proves the document names every route the app registers. Fix a failure with
// `npm run generate:openapi`.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { createApp } from '../../api/app.js';
import { createOpsApp } from '../../api/ops-routes.js';
import { listen } from '../../api/server.js';
import { openApiDocument, openApiPath, UNDOCUMENTED_PREFIXES } from '../../api/openapi/document.js';
import { API_REFERENCE_FILE, OPENAPI_FILE, openApiText } from '../../api/openapi/generate.js';
import { renderApiReference } from '../../api/openapi/reference-page.js';
import { loadCodeStrings } from '../../api/device-records/code-strings-file.js';

// Never connected: building the app and serving /openapi.json touch no database.
const pool = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none' });
const app = createApp({ readiness: {}, pool, jwtSecret: new Uint8Array(32), portalDir: null });
const committedText = readFileSync(OPENAPI_FILE, 'utf8');
const committed = JSON.parse(committedText) as Record<string, unknown>;
test.after(() => pool.end());

test('docs/openapi.json is what the app serves at GET /openapi.json', async () => {
  const res = await app.request('/openapi.json');
  assert.is(res.status, 200);
  assert.equal(await res.json(), committed, 'docs/openapi.json is stale: run npm run generate:openapi');
});

test('and what the HTTP server answers on a real socket', async () => {
  const server = await listen(app, { port: 0, hostname: '127.0.0.1' });
  try {
    const res = await fetch(`http://127.0.0.1:${server.port}/openapi.json`);
    assert.is(res.status, 200);
    assert.equal(await res.json(), committed);
  } finally {
    await server.close();
  }
});

test('and what the METRICS_PORT app serves', async () => {
  const res = await createOpsApp(openApiDocument({ codeStrings: loadCodeStrings() })).request('/openapi.json');
  assert.equal(await res.json(), committed);
});

test('docs/openapi.json is written as the generator writes it', () => {
  assert.is(committedText, openApiText(committed));
});

test('docs/api-reference.md is rendered from docs/openapi.json', () => {
  assert.is(readFileSync(API_REFERENCE_FILE, 'utf8'), renderApiReference(committed), 'docs/api-reference.md is stale: run npm run generate:openapi');
});

test('every route the app registers has an entry on the reference page', () => {
  const page = readFileSync(API_REFERENCE_FILE, 'utf8');
  const isSoap = (path: string) => UNDOCUMENTED_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
  const missing = app.routes.filter((r) => r.method !== 'ALL' && !isSoap(r.path))
    .map((r) => `### ${r.method} \`${openApiPath(r.path)}\``).filter((heading) => !page.includes(`${heading}\n`));
  assert.ok(app.routes.length > 50, 'the routes were enumerated');
  assert.equal(missing, []);
});

test.run();
