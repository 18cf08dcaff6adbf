// The incidents view and the map's faulted section in a real browser (Debian's chromium via playwright-core),
// against the real app on a database filled through the real pipeline and the incident worker: a permanent
// fault on lateral A of feeder north-F9 (topology imported), checked against what the API answers.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { createApp } from '../../../api/app.js';
import { listen } from '../../../api/server.js';
import { startIncidentWorker } from '../../../incidents/worker.js';
import { ensurePortalBuilt } from '../../../portal/build.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { localAvroCodec } from '../../../stages/runtime/codec.js';
import { memoryTransport } from '../../../stages/runtime/transport/memory.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { startTestPipeline } from '../../../support/pipeline.js';
import { importDemoData } from '../../../support/reference-data.js';
import { JWT_SECRET, USERS } from '../api/seeded-api.js';
import { checkInAt, IMEI, topologyFile, type Name } from '../incidents/feeder.js';
import { assertNoPageErrors, ensureChromium, launch, screenshot, signIn, type Browser } from './browser.js';

const portalDist = new URL('../../../portal/dist/', import.meta.url).pathname;
let db: TestDatabase;
let server: { port: number; close(): Promise<void> };
let base: string;
let incidentId: number;
const browsers: Browser[] = [];

async function browserAs(user: keyof typeof USERS): Promise<Page> {
  const b = await launch();
  browsers.push(b);
  await signIn(b.page, base, USERS[user]);
  return b.page;
}

test.before(async () => {
  ensureChromium();
  await ensurePortalBuilt();
  db = await createTestDatabase('portal_incidents');
  await importDemoData(db.pool);
  await importReferenceData(db.pool, topologyFile());
  const transport = memoryTransport({ codec: localAvroCodec(), partitions: 4 });
  const pipe = await startTestPipeline(transport, db.pool);
  const checkIn = checkInAt(Date.now() - 30 * 60_000);
  try {
    for (const n of Object.keys(IMEI) as Name[]) await pipe.feed([checkIn(n, 0, 0)]);
    for (const n of ['H', 'T1', 'LA1'] as Name[]) await pipe.feed([checkIn(n, 10, 4, [{ type: 'PFault', atMin: 9.5 }])]);
    await pipe.drain();
  } finally {
    await pipe.stop();
    await transport.close();
  }
  await startIncidentWorker({ pool: db.pool }, { loop: false }).runOnce();
  incidentId = Number((await db.pool.query('select id from incidents')).rows[0].id);
  const app = createApp({ readiness: {}, pool: db.pool, jwtSecret: JWT_SECRET, portalDir: portalDist });
  server = await listen(app, { port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${server.port}`;
});

test.after.each(() => assertNoPageErrors());
test.after(async () => {
  for (const b of browsers) await b.close();
  await server?.close();
  await db?.drop();
});

test('incidents list: the located incident with its faulted section, linked to its page', async () => {
  const page = await browserAs('northAdmin');
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Incidents' }).click();
  await page.waitForURL(`${base}/incidents`);
  const row = page.locator('table.data-table tbody tr').first();
  await row.waitFor();
  assert.is(await page.locator('table.data-table tbody tr').count(), 1);
  assert.match(await row.locator('td[data-col="sections"]').innerText(), 'Lateral A (phase A): below F9 LA1, above F9 LA2');
  assert.is(await row.locator('td[data-col="status"]').innerText(), 'located');
  assert.is(await row.locator('td[data-col="kind"]').innerText(), 'permanent');
  assert.is(await row.locator('td[data-col="trippedDevices"]').innerText(), '3');
  await screenshot(page, 'portal-incidents');
  await row.getByRole('link', { name: `#${incidentId}` }).click();
  await page.waitForURL(`${base}/incidents/${incidentId}`);
  await page.getByTestId('incident-sections').waitFor();
  assert.match(await page.getByTestId('incident-sections').innerText(), 'Lateral A (phase A): below F9 LA1, above F9 LA2');
  assert.equal((await page.getByTestId('incident-timeline').locator('li').allInnerTexts()).map((t) => t.split(' ').slice(-1)[0]), ['opened', 'located']);
  assert.equal(await page.locator('table.data-table tbody td[data-col="name"]').allInnerTexts(), ['F9 H', 'F9 T1', 'F9 LA1']);
  await screenshot(page, 'portal-incident');
});

test('map: the feeder drawn along its topology and the faulted section highlighted; the incident link zooms to it', async () => {
  const page = await browserAs('northAdmin');
  await page.goto(`${base}/incidents/${incidentId}`);
  await page.getByRole('link', { name: 'Show the faulted section on the map' }).click();
  await page.waitForURL(`${base}/map?incident=${incidentId}`);
  const map = page.getByTestId('map');
  await page.waitForFunction(() => (globalThis as unknown as { document: { querySelector(s: string): { getAttribute(a: string): string | null } | null } }).document.querySelector('[data-testid="map"]')?.getAttribute('data-incident-sections') === '1');
  assert.ok(Number(await map.getAttribute('data-feeders')) >= 1);
  assert.match(await page.getByTestId('incident-legend').innerText(), 'faulted section of an active incident');
  await screenshot(page, 'portal-map-incident');
});

test('a group user sees the incident (tripped devices in their group); another organisation sees none', async () => {
  const east = await browserAs('northEast');
  await east.goto(`${base}/incidents`);
  await east.locator('table.data-table tbody tr').first().waitFor();
  assert.is(await east.locator('table.data-table tbody tr').count(), 1);
  const south = await browserAs('southAdmin');
  await south.goto(`${base}/incidents`);
  await south.getByText('No incidents.').waitFor();
});

test.run();
