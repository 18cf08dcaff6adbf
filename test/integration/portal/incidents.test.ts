// The incidents view and the map's faulted section in a real browser (Debian's chromium via playwright-core),
// against the real app on a database filled through the real pipeline and the incident worker: a permanent
// fault on lateral A of feeder north-F9 (topology imported), checked against what the API answers. Then the
// incident is closed: the "All" filter still lists it, its page still shows its section on the map, and
// leaving the map in the middle of a zoom throws nothing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { screenshot } from '../../../support/browser.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { checkPageErrorsAfterEach, servePortal, type PortalSite } from '../../../support/portal-site.js';
import { JWT_SECRET, USERS } from '../api/seeded-api.js';
import { seedLateralAFault } from '../incidents/feeder.js';

let db: TestDatabase;
let site: PortalSite;
let base: string;
let incidentId: number;

const browserAs = (user: keyof typeof USERS, viewport?: { width: number; height: number }): Promise<Page> => site.browserAs(USERS[user], viewport);

test.before(async () => {
  db = await createTestDatabase('portal_incidents');
  incidentId = await seedLateralAFault(db.pool);
  site = await servePortal({ pool: db.pool, jwtSecret: JWT_SECRET });
  base = site.base;
});

checkPageErrorsAfterEach(test);
test.after(async () => {
  try { await site?.close(); } finally { await db?.drop(); }
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
  // The first trip first (device clock), then the worker's steps (service clock), each time to the second.
  const steps = await page.getByTestId('incident-timeline').locator('li').allInnerTexts();
  assert.equal(steps.map((t) => t.replace(/^\d{4}-[A-Z][a-z]{2}-\d\d \d\d:\d\d:\d\d [AP]M /, '')), ['(device clock) first trip', '(service clock) opened', '(service clock) located']);
  assert.equal(await page.locator('table.data-table tbody td[data-col="name"]').allInnerTexts(), ['F9 H', 'F9 T1', 'F9 LA1']);
  await screenshot(page, 'portal-incident');
});

test('map: the feeder drawn along its topology and the faulted section highlighted; the incident link zooms to it', async () => {
  const page = await browserAs('northAdmin');
  await page.goto(`${base}/incidents/${incidentId}`);
  await page.getByRole('link', { name: 'Show the faulted section on the map' }).click();
  await page.waitForURL(`${base}/map?incident=${incidentId}`);
  const map = page.getByTestId('map');
  await page.waitForSelector(`[data-testid="map"][data-incident-sections="1"][data-zoomed-incident="${incidentId}"]`);
  assert.ok(Number(await map.getAttribute('data-feeders')) >= 1);
  assert.match(await page.getByTestId('incident-legend').innerText(), 'faulted section');
  // The feeder's hover target is wider than its 2 px line, and a device says its name on hover.
  assert.match(await page.getByTestId('incident-focus').innerText(), 'below F9 LA1, above F9 LA2');
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

test('a closed incident: "All" lists it, and its page shows the faulted section on the map, its bounding devices named', async () => {
  await db.pool.query(`update incidents set status = 'closed', closed_at = now() where id = $1`, [incidentId]);
  const page = await browserAs('northAdmin');
  await page.goto(`${base}/incidents`);
  await page.getByText('No incidents.').waitFor();
  await page.getByLabel('Status').selectOption({ label: 'All' });
  await page.waitForURL(`${base}/incidents?status=all`);
  const row = page.locator('table.data-table tbody tr').first();
  await row.waitFor();
  assert.is(await row.locator('td[data-col="status"]').innerText(), 'closed');
  assert.is(await page.getByLabel('Status').inputValue(), 'all', 'the choice stays "All"');
  await row.getByRole('link', { name: `#${incidentId}` }).click();
  await page.getByRole('link', { name: 'Show the faulted section on the map' }).click();
  await page.waitForURL(`${base}/map?incident=${incidentId}`);
  await page.waitForSelector(`[data-testid="map"][data-incident-sections="1"][data-zoomed-incident="${incidentId}"]`);
  const focus = page.getByTestId('incident-focus');
  assert.match(await focus.innerText(), `Incident #${incidentId}`);
  assert.match(await focus.innerText(), 'closed');
  assert.match(await focus.innerText(), 'F9 LA1');
  assert.match(await focus.innerText(), 'F9 LA2');
  // The bounding devices are labelled on the map itself.
  await page.waitForSelector('.device-label');
  const labels = await page.locator('.device-label').allInnerTexts();
  for (const name of ['F9 LA1', 'F9 LA2']) assert.ok(labels.includes(name), `${name} labelled (${labels.join(', ')})`);
});

test('leaving the map in the middle of a zoom, 20 times: no page error', async () => {
  const page = await browserAs('northAdmin');
  for (let i = 0; i < 20; i++) {
    await page.goto(`${base}/map?incident=${incidentId}`);
    await page.waitForSelector('[data-testid="map"][data-markers-painted]');
    // An animated zoom (the buttons animate), and away while it runs: the zoom transition ends after the map is gone.
    await page.getByRole('button', { name: i % 2 ? 'Zoom out' : 'Zoom in' }).click();
    await page.waitForTimeout(i % 4 === 0 ? 0 : 40 * (i % 4));
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Incidents' }).click();
    await page.waitForURL(`${base}/incidents`);
  }
  // The zoom's end runs 250 ms after it starts: give the last ones time to throw.
  await page.waitForTimeout(800);
  assert.is(await page.getByTestId('map').count(), 0, 'the map is gone');
});

test.run();
