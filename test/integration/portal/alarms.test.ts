// The alarms view in a real browser (Debian's chromium via playwright-core) against the real app, and the
// acknowledge endpoint itself (issue 20 point 5): alarms raised and routed by the real router on a database
// with demo data and an escalating rule; listed by state with who acknowledged and when; the Acknowledge button
// of a group user stops the escalation (checked in the database and by routing past the next period, against
// an alarm left alone that does escalate).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { applyCheckInAlarms } from '../../../alarms/raise.js';
import { routeAlarms } from '../../../alarms/router.js';
import type { CheckInAlarms } from '../../../alarms/check-in-alarms.js';
import { loadAlarmSettings } from '../../../config/settings.js';
import { FAULT_CODE_KINDS } from '../../../domain/alarm-kinds.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { importDemoData } from '../../../support/reference-data.js';
import { importAlarms } from '../../../support/alarm-setup.js';
import { JWT_SECRET, login, USERS } from '../api/seeded-api.js';
import { screenshot } from '../../../support/browser.js';
import { checkPageErrorsAfterEach, servePortal, type PortalSite } from '../../../support/portal-site.js';

const MIN = 60_000;
const ACKED = '861000000000000'; // north-east: acknowledged in the browser by the group user
const LEFT = '861000000000200'; // north-east: left alone, escalates
const WEST = '861000000000400'; // north-west: out of the group user's reach, acknowledged by the admin
const CLEARED = '861000000000100'; // north-east: raised and cleared
const settings = loadAlarmSettings({ ALARM_RECIPIENT_CAP_PER_DAY: '1000', PORTAL_URL: 'https://portal.example' });
const T = Date.now() - 20 * MIN;
let db: TestDatabase;
let site: PortalSite;
let app: PortalSite['app'];
let base: string;

function checkIn(imei: string, atMs: number, code: number): CheckInAlarms {
  const kind = (c: number) => ({ 4: 'permanent', 2: 'temporary' } as Record<number, string>)[c] ?? null;
  return {
    IMEINumber: imei, OrganizationID: 'north', PowerLineID: imei === CLEARED ? 'north-F7' : 'north-F12', deviceName: null, date: new Date(atMs).toISOString(), code,
    transition: { raise: kind(code), end: FAULT_CODE_KINDS.filter((k) => k !== kind(code)) }, modelChange: null,
  };
}

const alarmOf = async (imei: string) => (await db.pool.query<{ id: string; acknowledged_at: Date | null; acknowledged_by: string | null; cleared_at: Date | null }>(
  'select id, acknowledged_at, acknowledged_by, cleared_at from alarms where "IMEINumber" = $1 order by id desc limit 1', [imei])).rows[0]!;
const sent = async (imei: string) => (await db.pool.query<{ m: string }>(
  `select o.kind || ':' || o.recipient_id as m from alarm_outbox o join alarms a on a.id = o.alarm_id where a."IMEINumber" = $1 order by o.id`, [imei])).rows.map((r) => r.m);
const nameOf = async (imei: string) => (await db.pool.query<{ n: string | null }>('select "Real_Name" as n from device_information where "IMEINumber" = $1', [imei])).rows[0]!.n ?? imei;

const browserAs = (user: keyof typeof USERS, viewport?: { width: number; height: number }): Promise<Page> => site.browserAs(USERS[user], viewport);

async function ack(user: keyof typeof USERS, id: string): Promise<Response> {
  return app.request(`/api/alarms/${id}/acknowledge`, { method: 'POST', headers: { authorization: `Bearer ${await login(app, user)}` } });
}

test.before(async () => {
  db = await createTestDatabase('portal_alarms');
  await importDemoData(db.pool);
  await importAlarms(db.pool, {
    recipients: [
      { id: 'p-first', OrganizationID: 'north', channel: 'email', address: 'first@north.example' },
      { id: 'p-second', OrganizationID: 'north', channel: 'sms', address: '+15550122' },
      { id: 'p-third', OrganizationID: 'north', channel: 'sms', address: '+15550133' },
    ],
    rules: [{ id: 'p-esc', OrganizationID: 'north', class: 'operations', what: ['permanent', 'temporary'], who: ['p-first'], escalation: { afterMinutes: 15, roster: ['p-second', 'p-third'] } }],
  });
  await applyCheckInAlarms(db.pool, [checkIn(CLEARED, T - 60 * MIN, 2)], T - 60 * MIN);
  await applyCheckInAlarms(db.pool, [checkIn(CLEARED, T - 50 * MIN, 0)], T - 50 * MIN);
  await applyCheckInAlarms(db.pool, [checkIn(ACKED, T, 4), checkIn(LEFT, T + MIN, 4), checkIn(WEST, T + MIN, 4)], T + MIN);
  await routeAlarms(db.pool, settings, T + MIN);
  await routeAlarms(db.pool, settings, T + 17 * MIN); // first escalation of the three open alarms
  assert.equal(await sent(ACKED), ['raised:p-first', 'escalated:p-second']);
  site = await servePortal({ pool: db.pool, jwtSecret: JWT_SECRET });
  ({ app, base } = site);
});

checkPageErrorsAfterEach(test);
test.after(async () => {
  try { await site?.close(); } finally { await db?.drop(); }
});

test('API: POST /api/alarms/{id}/acknowledge records who and when, once; only within reach', async () => {
  const west = await alarmOf(WEST);
  assert.is((await ack('northEast', west.id)).status, 404, 'a group user cannot reach another group\'s device');
  assert.is((await ack('southAdmin', west.id)).status, 404, 'nor another organisation');
  const before = Date.now();
  const res = await ack('northAdmin', west.id);
  assert.is(res.status, 200, await res.clone().text());
  const body = (await res.json()) as { id: number; acknowledged_at: string };
  assert.is(body.id, Number(west.id));
  assert.ok(Date.parse(body.acknowledged_at) >= before - 1000);
  const again = (await (await ack('northAdmin', west.id)).json()) as { acknowledged_at: string };
  assert.is(again.acknowledged_at, body.acknowledged_at, 'a second acknowledgement keeps the first');
  const stored = await alarmOf(WEST);
  assert.is(stored.acknowledged_by, 'admin@north.example');
  assert.is(stored.cleared_at, null, 'a fault alarm stays until its condition clears');
  const list = await app.request('/api/alarms?state=acknowledged', { headers: { authorization: `Bearer ${await login(app, 'northAdmin')}` } });
  const rows = ((await list.json()) as { data: { id: number; acknowledged_by: string; state: string }[] }).data;
  assert.equal(rows.map((r) => [r.id, r.acknowledged_by, r.state]), [[Number(west.id), 'admin@north.example', 'acknowledged']]);
});

test('alarms view: active, acknowledged and cleared by state; Acknowledge stops the escalation', async () => {
  const page = await browserAs('northEast', { width: 1440, height: 900 });
  await page.getByRole('link', { name: 'Alarms' }).click();
  await page.waitForURL(`${base}/alarms`);
  const rows = page.locator('table.data-table tbody tr');
  await rows.first().waitFor();
  const [ackedName, leftName, clearedName] = [await nameOf(ACKED), await nameOf(LEFT), await nameOf(CLEARED)];
  // Active: the two open alarms in the group (the west one is out of reach), newest first, each with its button.
  assert.equal(await page.locator('td[data-col="device"]').allInnerTexts(), [leftName, ackedName]);
  assert.equal(await page.locator('td[data-col="state"]').allInnerTexts(), ['active', 'active']);
  assert.equal(await page.locator('td[data-col="label"]').allInnerTexts(), ['Permanent fault', 'Permanent fault']);
  assert.equal(await page.locator('td[data-col="class"]').allInnerTexts(), ['operations', 'operations']);
  assert.equal(await page.locator('td[data-col="PowerLineID"]').allInnerTexts(), ['north-F12', 'north-F12']);
  await screenshot(page, 'portal-alarms');
  await screenshot(page, 'portal-alarms-1440');
  assert.ok(await page.evaluate('document.querySelector(".table-wrap").scrollWidth <= document.querySelector(".table-wrap").clientWidth'), 'the alarm table fits 1,440 px');
  assert.match(await page.locator('td[data-col="raised_at"]').first().innerText(), /^\d{4}-[A-Z][a-z]{2}-\d\d \d\d:\d\d:\d\d [AP]M$/, 'to the second');
  assert.match(await page.locator('thead').innerText(), 'Raised (service clock)');

  const row = rows.filter({ hasText: ackedName });
  const acked = await alarmOf(ACKED);
  await row.getByRole('button', { name: `Acknowledge alarm ${acked.id}` }).click();
  await page.waitForFunction((n) => (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<unknown> } }).document.querySelectorAll('table.data-table tbody tr').length === n, 1);
  assert.equal(await page.locator('td[data-col="device"]').allInnerTexts(), [leftName]);

  // In the database: acknowledged by the group user; routing past the next period escalates only the other one.
  const stored = await alarmOf(ACKED);
  assert.is(stored.acknowledged_by, 'east@north.example');
  assert.ok(stored.acknowledged_at !== null && stored.cleared_at === null);
  await routeAlarms(db.pool, settings, T + 40 * MIN);
  assert.equal(await sent(ACKED), ['raised:p-first', 'escalated:p-second'], 'acknowledged: no further escalation');
  assert.equal(await sent(LEFT), ['raised:p-first', 'escalated:p-second', 'escalated:p-third'], 'left alone: escalates');

  // Filter by state: acknowledged shows who and when; cleared shows when.
  await page.getByLabel('State').selectOption('acknowledged');
  await page.waitForURL(`${base}/alarms?state=acknowledged`);
  await page.locator('td[data-col="state"]', { hasText: 'acknowledged' }).first().waitFor();
  assert.equal(await page.locator('td[data-col="device"]').allInnerTexts(), [ackedName]);
  assert.match(await page.locator('td[data-col="acknowledged"]').innerText(), /\nby east@north\.example$/);
  assert.is(await page.locator('td[data-col="action"] button').count(), 0);
  await page.getByLabel('State').selectOption('cleared');
  await page.waitForURL(`${base}/alarms?state=cleared`);
  await page.locator('td[data-col="state"]', { hasText: 'cleared' }).first().waitFor();
  assert.equal(await page.locator('td[data-col="device"]').allInnerTexts(), [clearedName]);
  assert.equal(await page.locator('td[data-col="label"]').allInnerTexts(), ['Temporary fault']);
  assert.not.equal(await page.locator('td[data-col="cleared_at"]').innerText(), '—');
  await page.getByLabel('State').selectOption('all');
  await page.waitForURL(`${base}/alarms?state=all`);
  await page.waitForFunction((n) => (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<unknown> } }).document.querySelectorAll('table.data-table tbody tr').length === n, 3);
  await screenshot(page, 'portal-alarms-all');
});

test('the admin sees the whole organisation, with the alarm they acknowledged; another organisation sees none', async () => {
  const admin = await browserAs('northAdmin');
  await admin.goto(`${base}/alarms?state=acknowledged`);
  await admin.locator('table.data-table tbody tr').first().waitFor();
  const byWho = await admin.locator('td[data-col="acknowledged"]').allInnerTexts();
  assert.is(byWho.length, 2);
  assert.ok(byWho.some((t) => t.endsWith('\nby admin@north.example')) && byWho.some((t) => t.endsWith('\nby east@north.example')), byWho.join(' | '));
  const south = await browserAs('southAdmin');
  await south.goto(`${base}/alarms`);
  await south.getByText('No alarms.').waitFor();
});

test.run();
