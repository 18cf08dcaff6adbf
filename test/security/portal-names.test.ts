// Imported names are text in the portal (issue 28, point 4; docs/decisions.md#hostile-callers): an
// organisation's admin imports a power line, sections and devices whose names are HTML; in chromium the map's
// feeder and incident tooltips (Leaflet) and the incident page show those characters, no element of them
// exists and no handler of them ran. The portal is served with a Content-Security-Policy that it runs under
// without a single violation.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { PORTAL_CSP } from '../../api/portal-static.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { reportTally } from '../helpers/tally.js';
import { JWT_SECRET, USERS } from '../integration/api/seeded-api.js';
import { IMEI, seedLateralAFault, topologyFile, type Name } from '../integration/incidents/feeder.js';
import { hoverMapUntil, mapPixel, screenshot, type Browser } from '../../support/browser.js';
import { checkPageErrorsAfterEach, servePortal, type PortalSite } from '../../support/portal-site.js';

const LINE = 'Feeder <img src=x onerror="document.body.dataset.pwned=1"> 9';
const SECTION = '<b>Lateral</b> A<script>document.body.dataset.pwned=2</script>';
const DEVICE = (n: string) => `F9 <i onmouseover="document.body.dataset.pwned=3">${n}</i>`;
let db: TestDatabase;
let site: PortalSite;
let base: string;
let incidentId: number;
let browser: Browser;
let tried = 0;
let refused = 0;

test.before(async () => {
  db = await createTestDatabase('portal_names');
  const file = topologyFile();
  file.powerLines[0]!.name = LINE;
  for (const d of file.devices) {
    d.Real_Name = DEVICE(d.Real_Name.slice(3));
    if (d.Section === 'Lateral A') d.Section = SECTION;
  }
  incidentId = await seedLateralAFault(db.pool, file);
  site = await servePortal({ pool: db.pool, jwtSecret: JWT_SECRET });
  base = site.base;
  await site.browserAs(USERS.northAdmin);
  browser = site.browsers[0]!;
});

checkPageErrorsAfterEach(test);
test.after(async () => {
  await site?.close();
  await db?.drop();
  reportTally('portal-names', { attacksTried: tried, attacksRefused: refused });
});


/** Nothing of the names became markup or ran. */
async function assertInert(page: Page, where: string): Promise<void> {
  // (The page's own document: the test process has no DOM types.)
  assert.is(await page.evaluate('document.body.dataset.pwned ?? null'), null, `${where}: no handler of a name ran`);
  assert.is(await page.locator('.leaflet-tooltip img, .leaflet-tooltip b, .leaflet-tooltip i, .leaflet-tooltip script').count(), 0, `${where}: no element from a name in a tooltip`);
}

test('the portal is served with a Content-Security-Policy', async () => {
  for (const path of ['/', '/map']) {
    const res = await fetch(`${base}${path}`, { headers: { accept: 'text/html' } });
    assert.is(res.headers.get('content-security-policy'), PORTAL_CSP, path);
    assert.match(PORTAL_CSP, "script-src 'self'");
    assert.not.match(PORTAL_CSP, /script-src[^;]*unsafe-inline/);
  }
});

test('map tooltips (feeder and faulted section) show HTML names as text', async () => {
  const page = browser.page;
  await page.goto(`${base}/map?incident=${incidentId}`);
  await page.waitForSelector(`[data-testid="map"][data-incident-sections="1"][data-zoomed-incident="${incidentId}"]`);
  const devices = topologyFile().devices;
  const at = (n: Name) => devices.find((d) => d.IMEINumber === IMEI[n])!;
  // Halfway along the faulted section LA1 -> LA2 (the incident's tooltip, drawn over the feeder), and a tenth
  // of the way from LA1 up to T1 (the feeder's tooltip; the view is zoomed to the section).
  for (const [label, a, b, f, expect] of [['incident section', 'LA1', 'LA2', 0.5, `Incident ${incidentId}`], ['feeder', 'LA1', 'T1', 0.1, 'feeder topology of']] as const) {
    tried++;
    const tooltip = page.locator('.leaflet-tooltip').filter({ hasText: expect });
    await hoverMapUntil(page, `the ${label}'s tooltip on a hover`, () => mapPixel(page, at(a).Lat + f * (at(b).Lat - at(a).Lat), at(a).Long + f * (at(b).Long - at(a).Long)), tooltip);
    const text = await tooltip.first().innerText();
    assert.match(text, LINE, `${label}: the power line's name as typed`);
    if (label === 'incident section') {
      assert.match(text, SECTION, 'the section label as typed');
      assert.match(text, DEVICE('LA1'), 'the device name as typed');
    }
    await assertInert(page, label);
    await screenshot(page, `security-portal-names-${label.replace(' ', '-')}`);
    refused++;
  }
});

test('the incident page and its device table show the names as text', async () => {
  const page = browser.page;
  tried++;
  await page.goto(`${base}/incidents/${incidentId}`);
  await page.getByTestId('incident-sections').waitFor();
  assert.match(await page.getByTestId('incident-sections').innerText(), SECTION);
  assert.equal(await page.locator('table.data-table tbody td[data-col="name"]').allInnerTexts(), ['H', 'T1', 'LA1'].map(DEVICE));
  assert.match(await page.locator('main').innerText(), LINE);
  await assertInert(page, 'incident page');
  refused++;
});

test('the portal ran under its Content-Security-Policy without a violation', () => {
  // Every console error the page logged (support/browser.ts), of which a refused CSP would be one.
  assert.equal(browser.consoleErrors.filter((m) => /Content Security Policy|Refused to/i.test(m)), []);
});

test.run();
