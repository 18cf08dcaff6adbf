// Issue 43 item 3 in a real browser: a group user records the cause of an incident from its page (the list is
// the organisation's, GET /api/incident-causes), sees it with who and when, records another and sees both, the
// newest first; the Incidents view lists the cause and downloads the export with it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { screenshot } from '../../../support/browser.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { checkPageErrorsAfterEach, servePortal, type PortalSite } from '../../../support/portal-site.js';
import { JWT_SECRET, USERS } from '../api/seeded-api.js';
import { seedLateralAFault } from '../incidents/feeder.js';

let db: TestDatabase;
let site: PortalSite;
let incidentId: number;

const browserAs = (user: keyof typeof USERS): Promise<Page> => site.browserAs(USERS[user]);

test.before(async () => {
  db = await createTestDatabase('portal_cause');
  incidentId = await seedLateralAFault(db.pool);
  site = await servePortal({ pool: db.pool, jwtSecret: JWT_SECRET });
});
checkPageErrorsAfterEach(test);
test.after(async () => {
  try { await site?.close(); } finally { await db?.drop(); }
});

test('an operator records a cause on the incident page; the history keeps both records, newest first', async () => {
  const page = await browserAs('northEast');
  await page.goto(`${site.base}/incidents/${incidentId}`);
  const cause = page.getByTestId('incident-cause');
  await cause.getByText('No cause recorded yet.').waitFor();
  const form = page.getByRole('form', { name: 'Record the cause' });
  await form.getByLabel('Cause').selectOption('vegetation');
  await form.getByRole('button', { name: 'Record cause' }).click();
  await page.getByTestId('incident-cause-now').getByText('vegetation').waitFor();
  await form.getByLabel('Cause').selectOption('equipment');
  await form.getByLabel('Major event').check();
  await form.getByLabel('Note').fill('cracked insulator');
  await form.getByRole('button', { name: 'Record cause' }).click();
  await page.getByTestId('incident-cause-now').getByText('equipment').waitFor();
  const rows = cause.locator('table.data-table tbody tr');
  await rows.nth(1).waitFor();
  assert.equal(await cause.locator('td[data-col="cause"]').allInnerTexts(), ['equipment', 'vegetation']);
  assert.equal(await cause.locator('td[data-col="setBy"]').allInnerTexts(), [USERS.northEast.email, USERS.northEast.email]);
  assert.equal(await cause.locator('td[data-col="majorEvent"]').allInnerTexts(), ['yes', 'no']);
  await screenshot(page, 'portal-incident-cause');
  const { rows: stored } = await db.pool.query('select cause, major_event, note, set_by from incident_cause_changes where incident_id = $1 order by id', [incidentId]);
  assert.equal(stored, [
    { cause: 'vegetation', major_event: false, note: null, set_by: USERS.northEast.email },
    { cause: 'equipment', major_event: true, note: 'cracked insulator', set_by: USERS.northEast.email },
  ]);
});

test('the Incidents view shows the cause and downloads the CSV export with it', async () => {
  const page = await browserAs('northAdmin');
  await page.goto(`${site.base}/incidents`);
  const row = page.locator('table.data-table tbody tr').first();
  await row.waitFor();
  assert.is(await row.locator('td[data-col="cause"]').innerText(), 'equipment (major event)');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
  const text = readFileSync((await download.path())!, 'utf8');
  const [header, first] = text.trim().split('\n');
  const columns = header!.split(',');
  const cells = first!.split(',');
  assert.is(cells[columns.indexOf('incidentId')], String(incidentId));
  assert.is(cells[columns.indexOf('cause')], 'equipment');
  assert.is(cells[columns.indexOf('majorEvent')], 'true');
  assert.match(download.suggestedFilename(), /^incidents-start-now\.csv$/);
});

test('a long history shows its newest page; older causes load on request, each once (review M4)', async () => {
  // 23 more records as the route writes them: 25 in all, the page holds 20.
  await db.pool.query(`insert into incident_cause_changes (incident_id, cause, note, set_by, set_at)
    select $1, 'weather', 'storm ' || k, $2, now() - (100 - k) * interval '1 minute' from generate_series(1, 23) k`, [incidentId, USERS.northAdmin.email]);
  const page = await browserAs('northAdmin');
  await page.goto(`${site.base}/incidents/${incidentId}`);
  const cause = page.getByTestId('incident-cause');
  const rows = cause.locator('table.data-table tbody tr');
  await rows.nth(19).waitFor();
  assert.is(await rows.count(), 20);
  await cause.getByTestId('cause-history-more').click();
  await rows.nth(24).waitFor();
  assert.is(await rows.count(), 25);
  const notes = await cause.locator('td[data-col="note"]').allInnerTexts();
  assert.equal(notes.slice(0, 3), ['storm 23', 'storm 22', 'storm 21']);
  assert.equal(notes.slice(-2), ['cracked insulator', '']);
  assert.is(await cause.getByTestId('cause-history-more').count(), 0, 'no older page is offered at the end');
});

test.run();
