// The reliability view (issue 43) in a real browser (Debian's chromium via playwright-core) against the real
// app on a database filled through the real pipeline and the incident worker (a permanent fault on lateral A of
// north-F9): lines ranked as the API answers, a line opening to its sections, its map and last incidents, the
// page's IEEE 1366 statement; the masked organisation sees no class word and no split; a group user sees the
// lines of the user's groups. Screenshot: test/artifacts/portal-reliability.png (copied to docs/portal/).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { screenshot } from '../../../support/browser.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { checkPageErrorsAfterEach, servePortal, type PortalSite } from '../../../support/portal-site.js';
import { JWT_SECRET, USERS } from '../api/seeded-api.js';
import { seedLateralAFault } from '../incidents/feeder.js';
import { classWordsIn } from '../masking/every-class.js';

let db: TestDatabase;
let site: PortalSite;
let base: string;

const browserAs = (user: keyof typeof USERS): Promise<Page> => site.browserAs(USERS[user], { width: 1400, height: 1100 });

test.before(async () => {
  db = await createTestDatabase('portal_reliability');
  await seedLateralAFault(db.pool);
  site = await servePortal({ pool: db.pool, jwtSecret: JWT_SECRET, accountCacheMs: 0 });
  base = site.base;
});
checkPageErrorsAfterEach(test);
test.after(async () => {
  try { await site?.close(); } finally { await db?.drop(); }
});

test('lines ranked with the split and trend; a line opens to its sections, the map coloured by count and its last incidents', async () => {
  const page = await browserAs('northAdmin');
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Reliability' }).click();
  await page.waitForURL(`${base}/reliability`);
  const row = page.locator('table.data-table tbody tr').first();
  await row.waitFor();
  assert.is(await page.locator('table.data-table tbody tr').count(), 1);
  assert.is(await row.locator('td[data-col="powerLineName"]').innerText(), 'Feeder 9');
  assert.is(await row.locator('td[data-col="incidents"]').innerText(), '1');
  assert.is(await row.locator('td[data-col="permanent"]').innerText(), '1');
  assert.match(await row.locator('td[data-col="trend"]').innerText(), '+1 (was 0)');
  assert.match(await page.getByTestId('reliability-note').innerText(), 'not a customer interruption as IEEE 1366 defines one');
  await row.getByRole('link', { name: 'Feeder 9' }).click();
  await page.waitForURL(`${base}/reliability?powerLine=north-F9`);
  const sections = page.getByTestId('line-sections');
  await sections.locator('table.data-table tbody tr').first().waitFor();
  assert.equal(await sections.locator('td[data-col="label"]').allInnerTexts(), ['Lateral A']);
  await page.waitForSelector('[data-testid="reliability-map"][data-sections="1"]');
  assert.match(await page.getByTestId('last-incidents').innerText(), 'Lateral A');
  await screenshot(page, 'portal-reliability');
});

test('a masked organisation: incidents without the split, no class word on the page', async () => {
  await db.pool.query(`update organizations set "MaskFaultDetails" = true where "OrganizationID" = 'north'`);
  try {
    const page = await browserAs('northAdmin');
    await page.goto(`${base}/reliability?powerLine=north-F9`);
    await page.getByTestId('line-sections').locator('table.data-table tbody tr').first().waitFor();
    await page.getByTestId('last-incidents').waitFor();
    const text = await page.locator('main, body').first().innerText();
    assert.equal(classWordsIn(text), []);
    assert.is(await page.locator('td[data-col="permanent"], th:has-text("Momentary")').count(), 0);
    assert.is(await page.locator('table.data-table tbody tr td[data-col="incidents"]').first().innerText(), '1');
  } finally {
    await db.pool.query(`update organizations set "MaskFaultDetails" = false where "OrganizationID" = 'north'`);
  }
});

test('a group user sees the lines with a device in the user\'s groups; another organisation sees none', async () => {
  const east = await browserAs('northEast');
  await east.goto(`${base}/reliability`);
  await east.locator('table.data-table tbody tr').first().waitFor();
  assert.equal(await east.locator('td[data-col="powerLineName"]').allInnerTexts(), ['Feeder 9']);
  const south = await browserAs('southAdmin');
  await south.goto(`${base}/reliability`);
  await south.getByText('No incidents in this period or the one before.').waitFor();
});

test.run();
