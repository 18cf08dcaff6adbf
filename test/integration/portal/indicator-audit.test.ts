// The indicator audit view in a real browser (Debian's chromium via playwright-core), against the real app on
// the incident suites' feeder (a permanent fault on lateral A through the real pipeline and incident worker),
// with a finding about indicator T1 recorded by the audit's own store on that incident: listed with its evidence
// incident linked, dismissed by the admin with a reason, then shown as dismissed; a group user cannot dismiss.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { screenshot } from '../../../support/browser.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { checkPageErrorsAfterEach, servePortal, type PortalSite } from '../../../support/portal-site.js';
import { withTransaction } from '../../../db/transaction.js';
import { addEvidence, upsertFinding } from '../../../indicator-audit/store.js';
import { JWT_SECRET, USERS } from '../api/seeded-api.js';
import { IMEI, seedLateralAFault } from '../incidents/feeder.js';

let db: TestDatabase;
let site: PortalSite;
let base: string;
let incidentId: number;

const browserAs = (user: keyof typeof USERS): Promise<Page> => site.browserAs(USERS[user]);

test.before(async () => {
  db = await createTestDatabase('portal_audit');
  incidentId = await seedLateralAFault(db.pool);
  await withTransaction(db.pool, async (client) => {
    await addEvidence(client, { incidentId, organizationId: 'north', powerLineId: 'north-F9', evidence: [{ imei: IMEI.T1, verdict: 'missed', otherPhase: false }], at: new Date() });
    await upsertFinding(client, { organizationId: 'north', imei: IMEI.T1, powerLineId: 'north-F9', judgement: { kind: 'failed-or-mis-set', incidents: [incidentId], contradictions: 1, considered: 1 }, at: new Date() });
  });
  site = await servePortal({ pool: db.pool, jwtSecret: JWT_SECRET });
  base = site.base;
});

checkPageErrorsAfterEach(test);
test.after(async () => {
  try { await site?.close(); } finally { await db?.drop(); }
});

test('the finding with its evidence, linked to the incident; the admin dismisses it with a reason', async () => {
  const page = await browserAs('northAdmin');
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Indicator audit' }).click();
  await page.waitForURL(`${base}/indicator-audit`);
  const row = page.locator('table.data-table tbody tr').first();
  await row.waitFor();
  assert.is(await page.locator('table.data-table tbody tr').count(), 1);
  assert.is(await row.locator('td[data-col="title"]').innerText(), 'likely failed or mis-set indicator');
  assert.is(await row.locator('td[data-col="name"]').innerText(), 'F9 T1');
  assert.match(await row.getByTestId('finding-evidence').innerText(), `#${incidentId} silent between two that tripped`);
  await screenshot(page, 'portal-indicator-audit');
  await row.getByLabel('Reason').fill('indicator replaced, work order 4411');
  await row.getByRole('button', { name: 'Dismiss' }).click();
  await page.getByText('No findings.').waitFor();
  await page.getByLabel('Findings').selectOption('dismissed');
  await page.waitForURL(`${base}/indicator-audit?state=dismissed`);
  assert.match(await page.locator('table.data-table tbody td[data-col="dismissed"]').first().innerText(), 'by admin@north.example: indicator replaced, work order 4411');
  await row.getByRole('link', { name: `#${incidentId}` }).click();
  await page.waitForURL(`${base}/incidents/${incidentId}`);
});

test('a group user sees findings in reach but no dismiss form; another organisation sees none', async () => {
  const east = await browserAs('northEast');
  await east.goto(`${base}/indicator-audit?state=all`);
  await east.locator('table.data-table tbody tr').first().waitFor();
  assert.is(await east.getByRole('button', { name: 'Dismiss' }).count(), 0);
  const south = await browserAs('southAdmin');
  await south.goto(`${base}/indicator-audit?state=all`);
  await south.getByText('No findings.').waitFor();
});

test.run();
