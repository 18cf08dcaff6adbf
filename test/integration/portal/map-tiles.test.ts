// The map on a utility's own tile server (MAP_TILE_URL, config/map-tiles.ts) in chromium: a local XYZ server
// the test starts serves generated street tiles; the portal asks it for the tiles of the view and draws them
// under the feeder and the chosen incident, labelled at feeder zoom. The screenshot at 1,440 px is the
// README's "Web portal" section. Without a tile server, the map says at feeder zoom that it has no streets.
// And what a crew navigates by: legend counts that follow the power line filter, a device named on hover,
// and a healthy feeder that answers a hover several pixels beside its 2 px line.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadMapTiles } from '../../../config/map-tiles.js';
import { hoverMapUntil, mapPixel, screenshot } from '../../../support/browser.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { checkPageErrorsAfterEach, servePortal, type PortalSite } from '../../../support/portal-site.js';
import { startTileServer, type TileServer } from '../../../support/tile-server.js';
import { JWT_SECRET, USERS } from '../api/seeded-api.js';
import { IMEI, seedLateralAFault, topologyFile } from '../incidents/feeder.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
declare const document: any;
/* eslint-enable @typescript-eslint/no-explicit-any */

let db: TestDatabase;
let tiles: TileServer;
let withTiles: PortalSite;
let without: PortalSite;
let incidentId: number;

test.before(async () => {
  db = await createTestDatabase('portal_tiles');
  incidentId = await seedLateralAFault(db.pool);
  tiles = await startTileServer();
  withTiles = await servePortal({ pool: db.pool, jwtSecret: JWT_SECRET, mapTiles: loadMapTiles({ MAP_TILE_URL: tiles.url, MAP_TILE_ATTRIBUTION: 'Test tiles' }) });
  without = await servePortal({ pool: db.pool, jwtSecret: JWT_SECRET });
});

checkPageErrorsAfterEach(test);
test.after(async () => {
  try { await withTiles?.close(); await without?.close(); await tiles?.close(); } finally { await db?.drop(); }
});

test('MAP_TILE_URL: the setting is checked, and an unset one means no tiles', () => {
  assert.is(loadMapTiles({}), null);
  assert.throws(() => loadMapTiles({ MAP_TILE_URL: 'ftp://x/{z}/{x}/{y}' }), /http\(s\) URL template/);
  assert.throws(() => loadMapTiles({ MAP_TILE_URL: 'https://x/tiles.png' }), /\{z\}, \{x\} and \{y\}/);
  assert.equal(loadMapTiles({ MAP_TILE_URL: 'https://t.example/{z}/{x}/{y}.png', MAP_TILE_MAX_ZOOM: '18' }), { url: 'https://t.example/{z}/{x}/{y}.png', attribution: 'Map tiles: your utility\'s tile server', maxZoom: 18 });
});

test('the configured tile server: tiles of the view requested and drawn under the chosen incident, its devices labelled', async () => {
  const page = await withTiles.browserAs(USERS.northAdmin, { width: 1440, height: 900 });
  await page.goto(`${withTiles.base}/map?incident=${incidentId}`);
  await page.waitForSelector(`[data-testid="map"][data-incident-sections="1"][data-zoomed-incident="${incidentId}"]`);
  assert.is(await page.getByTestId('map').getAttribute('data-tiles'), tiles.url);
  await page.waitForFunction(() => document.querySelectorAll('img.leaflet-tile-loaded').length >= 4, undefined, { timeout: 30_000 });
  const zooms = new Set(tiles.requests.map((r) => Number(r.split('/')[1])));
  assert.ok([...zooms].some((z) => z >= 14), `tiles at feeder zoom requested (${[...zooms].join(', ')})`);
  const drawn = await page.locator('img.leaflet-tile-loaded').evaluateAll((imgs) => imgs.map((i) => [(i as unknown as { src: string }).src, (i as unknown as { naturalWidth: number }).naturalWidth] as const));
  assert.ok(drawn.every(([src, w]) => src.startsWith(tiles.url.split('/{z}')[0]!) && w === 256), 'every drawn tile is the server\'s, 256 px');
  assert.is(await page.getByTestId('basemap-notice').count(), 0, 'streets are there: no notice');
  assert.match(await page.locator('.leaflet-control-attribution').innerText(), 'Test tiles');
  const labels = await page.locator('.device-label').allInnerTexts();
  for (const name of ['F9 LA1', 'F9 LA2']) assert.ok(labels.includes(name), `${name} labelled (${labels.join(', ')})`);
  await page.waitForTimeout(500);
  await screenshot(page, 'portal-map-incident-tiles-1440');
});

test('no tile server: at feeder zoom the map says it has no streets instead of showing a blank ground', async () => {
  const page = await without.browserAs(USERS.northAdmin, { width: 1440, height: 900 });
  await page.goto(`${without.base}/map?incident=${incidentId}`);
  await page.waitForSelector(`[data-testid="map"][data-incident-sections="1"][data-zoomed-incident="${incidentId}"]`);
  await page.getByTestId('basemap-notice').waitFor();
  assert.match(await page.getByTestId('basemap-notice').innerText(), 'No streets at this zoom');
  assert.is(await page.locator('img.leaflet-tile').count(), 0);
});


test('legend counts follow the power line filter; a device says its name on hover; a feeder answers a hover 6 px off its line', async () => {
  const page = await without.browserAs(USERS.northAdmin, { width: 1440, height: 900 });
  await page.goto(`${without.base}/map`); // operators land on the board
  await page.waitForSelector('[data-testid="map"][data-markers-painted]');
  const total = async () => (await page.locator('.legend-count').allInnerTexts()).reduce((n, t) => n + Number(t), 0);
  const all = await total();
  await page.getByLabel('Power line').selectOption({ label: 'Feeder 9' });
  await page.waitForFunction((n) => [...document.querySelectorAll('.legend-count')].reduce((s: number, e: { textContent: string }) => s + Number(e.textContent), 0) !== n, all);
  assert.is(await total(), Object.keys(IMEI).length, `the legend counts Feeder 9's ${Object.keys(IMEI).length} devices (of ${all})`);
  // At feeder zoom on T1 (41.91, -87.6): T1 -> T2 is a healthy stretch of the trunk, straight north.
  await page.getByLabel('Find a device').fill('F9 T2');
  await page.locator('.matches button').first().click();
  await page.keyboard.press('Escape');
  await page.locator('.leaflet-popup-close-button').click().catch(() => undefined);
  await page.waitForSelector('.device-label');
  const t2 = topologyFile().devices.find((d) => d.IMEINumber === IMEI.T2)!;
  const t1 = topologyFile().devices.find((d) => d.IMEINumber === IMEI.T1)!;
  await hoverMapUntil(page, 'F9 T2\'s tooltip on a hover', () => mapPixel(page, t2.Lat, t2.Long), page.locator('.device-tooltip'));
  assert.match(await page.locator('.device-tooltip').innerText(), 'F9 T2: ');
  // Along the T2 -> T1 line, clear of the device, 6 px to the side: the feeder's tooltip.
  await hoverMapUntil(page, 'the feeder tooltip on a hover 6 px beside the line', async () => {
    const near = await mapPixel(page, t2.Lat + (t1.Lat - t2.Lat) * 0.15, t2.Long + (t1.Long - t2.Long) * 0.15);
    return { x: near.x + 6, y: near.y };
  }, page.locator('.feeder-tooltip'));
  assert.match(await page.locator('.feeder-tooltip').innerText(), 'Feeder 9');
  assert.ok((await page.locator('.device-label').allInnerTexts()).includes('F9 T2'), 'devices labelled at feeder zoom');
});

test.run();
