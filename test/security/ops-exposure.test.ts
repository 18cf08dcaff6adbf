// /metrics and /openapi.json off the public port (issue 28, point 4; docs/decisions.md#hostile-callers): with
// METRICS_PORT set, a scraper or a prober on the public port gets the JSON 404 for both, while the port of
// their own serves them and nothing else. Real servers on loopback over a real (empty) database.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../../api/app.js';
import { openApiDocument } from '../../api/openapi/document.js';
import { createOpsApp } from '../../api/ops-routes.js';
import { loadCodeStrings } from '../../api/device-records/code-strings-file.js';
import { listen } from '../../api/server.js';
import { loadSettings } from '../../config/settings.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { reportTally } from '../helpers/tally.js';

let db: TestDatabase;
const servers: { close(): Promise<void> }[] = [];
let publicBase = '';
let opsBase = '';
let tried = 0;
let refused = 0;

test.before(async () => {
  db = await createTestDatabase('ops_port');
  const settings = loadSettings({ METRICS_PORT: '0' });
  assert.is(settings.metricsPort, 0);
  const pub = await listen(createApp({ readiness: {}, pool: db.pool, jwtSecret: new TextEncoder().encode('ops-exposure-secret-of-at-least-32-bytes'), opsRoutes: settings.metricsPort === null, portalDir: null }), { port: 0, hostname: '127.0.0.1' });
  const ops = await listen(createOpsApp(openApiDocument({ codeStrings: loadCodeStrings() })), { port: settings.metricsPort!, hostname: '127.0.0.1' });
  servers.push(pub, ops);
  publicBase = `http://127.0.0.1:${pub.port}`;
  opsBase = `http://127.0.0.1:${ops.port}`;
});
test.after(async () => {
  for (const s of servers) await s.close();
  await db?.drop();
  reportTally('ops-exposure', { attacksTried: tried, attacksRefused: refused });
});

test('METRICS_PORT is read and checked', () => {
  assert.is(loadSettings({}).metricsPort, null, 'unset: on the public port');
  assert.is(loadSettings({ METRICS_PORT: '9464' }).metricsPort, 9464);
  assert.throws(() => loadSettings({ METRICS_PORT: 'public' }), /METRICS_PORT/);
  assert.throws(() => loadSettings({ METRICS_PORT: '70000' }), /METRICS_PORT/);
});

test('the public port answers neither /metrics nor /openapi.json; probes and health stay', async () => {
  for (const path of ['/metrics', '/openapi.json']) {
    tried++;
    const res = await fetch(`${publicBase}${path}`);
    const text = await res.text();
    assert.is(res.status, 404, `${path}: ${text.slice(0, 100)}`);
    assert.not.match(text, /faultline_|process_cpu|"openapi"/, `${path}: nothing of it`);
    refused++;
  }
  assert.is((await fetch(`${publicBase}/healthz`)).status, 200);
  assert.is((await fetch(`${publicBase}/readyz`)).status, 200);
});

test('the ops port serves them, and nothing of the API', async () => {
  const metrics = await fetch(`${opsBase}/metrics`);
  assert.is(metrics.status, 200);
  assert.match(await metrics.text(), 'process_cpu');
  const doc = (await (await fetch(`${opsBase}/openapi.json`)).json()) as { openapi: string };
  assert.match(doc.openapi, /^3\./);
  for (const [method, path] of [['POST', '/api/auth/login'], ['GET', '/device-records/map-data'], ['POST', '/soap'], ['GET', '/']] as const) {
    assert.is((await fetch(`${opsBase}${path}`, { method })).status, 404, `${method} ${path}`);
  }
});

test.run();
