// The fleet view (issue 44 point 2) in a real browser (Debian's chromium via playwright-core) against the real
// app on a database filled through the real pipeline: the demo fixtures, then devices of our own checking in
// every three hours over the last 30 days with days of missed check-ins (device_health_days written by persist),
// and assessment rows (device_health, device_silence, device_drift: support/fleet-assessment.ts, then a few
// set by hand so every kind of figure shows). Checked against the API's answers for the same user: the cards'
// counts, the list's order and pages (sorted by the server), the CSV; the strip's colour of each day with missed
// check-ins; a group user's reach; no class word for a masked organisation. Screenshot:
// test/artifacts/portal-fleet.png (copied to docs/portal/fleet.png).
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { localAvroCodec } from '../../../stages/runtime/codec.js';
import { memoryTransport } from '../../../stages/runtime/transport/memory.js';
import { screenshot } from '../../../support/browser.js';
import { fixtureText } from '../../../support/checkins.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { registerDevices } from '../../../support/device-data.js';
import { seedFleetAssessment } from '../../../support/fleet-assessment.js';
import { startTestPipeline } from '../../../support/pipeline.js';
import { checkPageErrorsAfterEach, servePortal, type PortalSite } from '../../../support/portal-site.js';
import { fillDatabase, JWT_SECRET, login, USERS, type UserName } from '../api/seeded-api.js';
import { classWordsIn } from '../masking/every-class.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
declare const document: any;
declare const getComputedStyle: any;
type Row = Record<string, any>;
/* eslint-enable @typescript-eslint/no-explicit-any */

const DAY = 86_400_000;
const HOURS = 3;
const PER_DAY = 24 / HOURS;
const PREFIX = '3574401';
/** Our devices (registerDevices numbers them from 1): the strip's, a young one, a silent one, and one more. */
const STRIP = `${PREFIX}00000001`;
const YOUNG = `${PREFIX}00000002`;
const SILENT = `${PREFIX}00000003`;
/** Days before today whose check-ins the strip device partly or wholly missed: received of PER_DAY. */
const MISSED: Record<number, number> = { 20: 0, 12: 4, 5: PER_DAY - 1 };

let db: TestDatabase;
let site: PortalSite;
let base: string;
const tokens = {} as Record<UserName, string>;
const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
const dayBefore = (n: number) => new Date(today - n * DAY).toISOString().slice(0, 10);

function checkIn(imei: string, ms: number, k: number): { name: string; body: string } {
  const m = JSON.parse(fixtureText('001-plain-checkin.json')) as { device_data: Record<string, unknown> };
  m.device_data = { ...m.device_data, IMEINumber: imei, date: new Date(ms).toISOString(), rssi: -70 - (k % 9), BatteryMCU: 3.6 - (k % 5) / 100, ConnectTime: 10 + (k % 7), version: '4.3.0' };
  return { name: `fleet-${imei}-${k}.json`, body: JSON.stringify(m) };
}

/** The strip device every three hours over the 29 days before today (less on the MISSED days), the young one over the last 9. */
function ourCheckIns(): { name: string; body: string }[] {
  const out = [];
  let k = 0;
  for (let n = 29; n >= 1; n--) {
    const received = MISSED[n] ?? PER_DAY;
    for (let i = 0; i < received; i++) out.push(checkIn(STRIP, today - n * DAY + (1 + i * HOURS) * 3_600_000, k++));
    if (n <= 9) for (let i = 0; i < PER_DAY; i++) out.push(checkIn(YOUNG, today - n * DAY + (2 + i * HOURS) * 3_600_000, k++));
    if (n >= 15) out.push(checkIn(SILENT, today - n * DAY + 3_600_000, k++));
  }
  return out;
}

async function api(path: string, user: UserName): Promise<Row> {
  const res = await site.app.request(path, { headers: { authorization: `Bearer ${tokens[user]}` } });
  const text = await res.text();
  assert.is(res.status, 200, `${user} ${path}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as Row;
}

/** Every device of the list for `user` with `query`, in the API's order. */
async function apiList(user: UserName, query = ''): Promise<string[]> {
  const body = await api(`/api/fleet/devices?limit=500${query}`, user);
  return (body.data as Row[]).map((r) => r.IMEINumber as string);
}

const browserAs = (user: UserName): Promise<Page> => site.browserAs(USERS[user], { width: 1400, height: 1100 });

async function listed(page: Page): Promise<string[]> {
  await page.locator('table.data-table[aria-busy="false"] tbody tr').first().waitFor();
  return page.locator('table.data-table tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key') as string));
}

/** Waits until the list shows `want` (a navigation reloads it; the previous rows stay until the answer arrives). */
async function listShows(page: Page, want: string[], what: string): Promise<void> {
  try {
    await page.waitForFunction((w: string[]) => {
      const t = document.querySelector('table.data-table');
      if (!t || t.getAttribute('aria-busy') !== 'false') return false;
      return JSON.stringify([...t.querySelectorAll('tbody tr')].map((r: { getAttribute(n: string): string }) => r.getAttribute('data-key'))) === JSON.stringify(w);
    }, want, { timeout: 20_000 });
  } catch {
    assert.equal(await listed(page), want, what);
  }
}

test.before(async () => {
  db = await createTestDatabase('portal_fleet');
  await fillDatabase(db);
  await registerDevices(db.pool, { prefix: PREFIX, devices: 4, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
  const transport = memoryTransport({ codec: localAvroCodec(), partitions: 4 });
  const pipe = await startTestPipeline(transport, db.pool);
  try {
    const messages = ourCheckIns();
    for (let i = 0; i < messages.length; i += 40) { await pipe.feed(messages.slice(i, i + 40)); await pipe.drain(); }
  } finally {
    await pipe.stop();
    await transport.close();
  }
  // What the fleet worker would conclude about our devices now, then a figure of each kind set by hand, and
  // our devices' online rates from their days at the interval they check in at.
  await seedFleetAssessment(db.pool, Date.now());
  await db.pool.query(`update device_health h set expected_7d = 7 * $2, expected_30d = 30 * $2,
      received_7d = (select coalesce(sum(received), 0) from device_health_days x where x."IMEINumber" = h."IMEINumber" and x.day >= (now() at time zone 'UTC')::date - 7 and x.day < (now() at time zone 'UTC')::date),
      received_30d = (select coalesce(sum(received), 0) from device_health_days x where x."IMEINumber" = h."IMEINumber" and x.day >= (now() at time zone 'UTC')::date - 30 and x.day < (now() at time zone 'UTC')::date)
    where h."IMEINumber" like $1 || '%'`, [PREFIX, PER_DAY]);
  await db.pool.query(`update device_health set battery_status = 'ok', battery_days_left = 400, battery_end_day = (now() at time zone 'UTC')::date + 400, signal = 'falling', rssi_slope_30d = -0.42,
    battery_evidence = '{"budgetFrom": "model", "capacityMah": 19000, "historyDays": 26, "perDayMah": 4.1, "consumedMah": 2010.5}' where "IMEINumber" = $1`, [STRIP]);
  await db.pool.query(`update device_health set battery_status = 'not_enough_data', battery_days_left = null, battery_end_day = null, history_days = 9,
    battery_evidence = '{"budgetFrom": "model", "capacityMah": 19000, "historyDays": 9, "minHistoryDays": 14, "voltage": 3.58, "voltageLow": false}' where "IMEINumber" = $1`, [YOUNG]);
  await db.pool.query(`insert into device_silence ("IMEINumber", silent_since, label, evidence, group_key, assessed_at)
    select $1, "LastCheckInTime", 'battery_exhausted', $2, null, now() from device_information where "IMEINumber" = $1
    on conflict ("IMEINumber") do update set label = excluded.label, evidence = excluded.evidence`,
  [SILENT, JSON.stringify({ low: true, falling: true, lastVolts: 3.05, dropVolts: 0.4, lowVolts: 3.2, days: [{ day: dayBefore(16), volts: 3.45 }, { day: dayBefore(15), volts: 3.05 }] })]);
  site = await servePortal({ pool: db.pool, jwtSecret: JWT_SECRET, accountCacheMs: 0 });
  base = site.base;
  for (const user of Object.keys(USERS) as UserName[]) tokens[user] = await login(site.app, user);
});
checkPageErrorsAfterEach(test);
test.after(async () => {
  try { await site?.close(); } finally { await db?.drop(); }
});

test('the cards show the API\'s counts, and each count opens the list of what it counts', async () => {
  const s = await api('/api/fleet/summary', 'northAdmin');
  assert.ok(s.silent > 0 && s.signal.weak > 0 && s.batteryEndWithin90d > 0, `the seed gives every card something: ${JSON.stringify(s)}`);
  const page = await browserAs('northAdmin');
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Fleet' }).click();
  await page.waitForURL(`${base}/fleet`);
  const card = (id: string) => page.getByTestId(id);
  await card('card-online-7d').waitFor();
  const pct = (r: number | null) => (r === null ? '—' : `${(r * 100).toFixed(1)} %`);
  assert.match(await card('card-online-7d').locator('a.card-value').innerText(), pct(s.online7d.rate));
  assert.match(await card('card-online-30d').locator('a.card-value').innerText(), pct(s.online30d.rate));
  assert.match(await card('card-online-7d-sums').innerText(), `${s.online7d.received.toLocaleString('en-US')} of ${s.online7d.expected.toLocaleString('en-US')} expected check-ins`);
  assert.match(await card('card-battery').locator('a.card-value').innerText(), String(s.batteryEndWithin90d));
  assert.is(await card('card-signal-weak').getAttribute('data-count'), String(s.signal.weak));
  assert.is(await card('card-signal-falling').getAttribute('data-count'), String(s.signal.falling));
  for (const [label, n] of Object.entries(s.silentByLabel)) assert.is(await card(`card-silent-${label}`).getAttribute('data-count'), String(n), label);
  assert.match(await card('card-silent').locator('h2').innerText(), `Silent devices: ${s.silent}`);
  assert.equal(await card('card-firmware').locator('[data-testid="card-firmware-row"]').evaluateAll((li) => li.map((x) => Number(x.getAttribute('data-count')))),
    (s.firmwareByModel as Row[]).map((f) => f.devices));

  // Weak signal: the list filtered to exactly the API's weak devices.
  await card('card-signal-weak').getByRole('link').click();
  await page.waitForURL(/filterBy=/);
  await listShows(page, await apiList('northAdmin', `&filterBy=${encodeURIComponent('{"signal":{"eq":"weak"}}')}`), 'weak signal');
  // Silent with a battery exhausted: our silent device.
  await card('card-silent-battery_exhausted').getByRole('link').click();
  await listShows(page, [SILENT], 'battery exhausted');
  assert.match(await page.getByTestId('list-filter').innerText(), 'Battery exhausted');
  // The battery card: the list by days left, fewest first (nulls last), as the API sorts it.
  await card('card-battery').getByRole('link').click();
  await page.waitForURL(/batteryDaysLeft/);
  const byBattery = await apiList('northAdmin', `&sortBy=${encodeURIComponent('{"field":"batteryDaysLeft","order":"asc"}')}`);
  await page.goto(`${base}/fleet?limit=500&sortBy=${encodeURIComponent('{"field":"batteryDaysLeft","order":"asc"}')}`);
  await listShows(page, byBattery, 'battery days left');
});

test('the list is sorted and paged by the server: every measure\'s header sorts, pages follow the API, the CSV holds the same rows', async () => {
  const page = await browserAs('northAdmin');
  await page.goto(`${base}/fleet?limit=3`);
  await listShows(page, (await api('/api/fleet/devices?limit=3', 'northAdmin')).data.map((r: Row) => r.IMEINumber), 'first page');
  const total = (await api('/api/fleet/devices?limit=3', 'northAdmin')).total as number;
  assert.ok(total > 6, `enough devices for three pages (${total})`);
  for (const field of ['onlineRate7d', 'onlineRate30d', 'batteryDaysLeft', 'rssiMedian7d', 'rssiSlope30d', 'firmware', 'silenceLabel', 'LastCheckInTime']) {
    await page.goto(`${base}/fleet?limit=3`);
    await page.locator(`button.sort[data-sort="${field}"]`).click();
    const sortBy = encodeURIComponent(JSON.stringify({ field, order: 'desc' }));
    await page.waitForURL((url) => url.searchParams.get('sortBy') === JSON.stringify({ field, order: 'desc' }));
    await listShows(page, (await api(`/api/fleet/devices?limit=3&sortBy=${sortBy}`, 'northAdmin')).data.map((r: Row) => r.IMEINumber), `sorted by ${field}`);
    assert.is(await page.locator(`th:has(button[data-sort="${field}"])`).getAttribute('aria-sort'), 'descending');
  }
  // Paging, sorted by the 7-day online rate ascending: page 2 is the API's page 1.
  const sortBy = encodeURIComponent('{"field":"onlineRate7d","order":"asc"}');
  await page.goto(`${base}/fleet?limit=3&sortBy=${sortBy}`);
  await listShows(page, (await api(`/api/fleet/devices?limit=3&sortBy=${sortBy}`, 'northAdmin')).data.map((r: Row) => r.IMEINumber), 'page 1');
  await page.getByRole('button', { name: 'Next →' }).click();
  await listShows(page, (await api(`/api/fleet/devices?limit=3&page=1&sortBy=${sortBy}`, 'northAdmin')).data.map((r: Row) => r.IMEINumber), 'page 2');
  assert.match(await page.getByTestId('pager-text').innerText(), `4–6 of ${total}`);
  // The CSV: the list's rows in its order.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
  const lines = readFileSync((await download.path())!, 'utf8').trimEnd().split('\n');
  assert.is(download.suggestedFilename(), 'fleet-devices.csv');
  assert.equal(lines.slice(1).map((l) => l.split(',')[0]), await apiList('northAdmin', `&sortBy=${sortBy}`));
});

test('a device\'s strip: a cell per day coloured by missed check-ins, a legend, a tooltip with the day\'s figures; forecast, signal, silence and drift', async () => {
  const health = await api(`/api/fleet/devices/${STRIP}/health`, 'northAdmin');
  const page = await browserAs('northAdmin');
  await page.goto(`${base}/fleet?filterBy=${encodeURIComponent(JSON.stringify({ IMEINumber: { eq: STRIP } }))}`);
  await page.locator('table.data-table tbody tr').first().getByRole('link').click();
  await page.waitForURL(new RegExp(`device=${STRIP}`));
  const strip = page.getByTestId('day-strip');
  await strip.waitFor();
  assert.is(await strip.locator('li.day-cell').count(), 30);
  assert.equal(await strip.locator('li.day-cell').evaluateAll((li) => li.map((x) => x.getAttribute('data-day'))), (health.days as Row[]).map((d) => d.day));
  const legend = new Map(await page.locator('.strip-legend li').evaluateAll((li) => li.map((x) => [x.getAttribute('data-band'), getComputedStyle(x.querySelector('.legend-box')).backgroundColor] as [string, string])));
  const cell = (n: number) => strip.locator(`li[data-day="${dayBefore(n)}"]`);
  const bandOf = async (n: number) => {
    const c = cell(n);
    const band = (await c.getAttribute('data-band'))!;
    assert.is(await c.evaluate((x) => getComputedStyle(x).backgroundColor), legend.get(band), `day ${dayBefore(n)}'s colour is its legend's`);
    return band;
  };
  // What we fed: none on one day, half on another, one missed on a third, the others whole.
  assert.is(await bandOf(20), 'all-missed');
  assert.is(await bandOf(12), 'many-missed');
  assert.is(await bandOf(5), 'few-missed');
  for (const n of [25, 19, 13, 11, 4, 1]) assert.is(await bandOf(n), 'all-received', dayBefore(n));
  assert.is(new Set([...legend.values()]).size, legend.size, 'every band has its own colour');
  for (const n of [20, 12, 5]) {
    const d = (health.days as Row[]).find((x) => x.day === dayBefore(n))!;
    assert.equal([d.expected, d.received], [PER_DAY, MISSED[n]], `the API's ${d.day}`);
  }
  // The tooltip of the half-missed day.
  await cell(12).hover();
  const tip = cell(12).locator('[role="tooltip"]');
  await tip.waitFor({ state: 'visible' });
  const text = await tip.innerText();
  assert.match(text, `expected ${PER_DAY}, received 4, missed 4`);
  assert.match(text, /RSSI median -\d+(\.\d)? dBm/);
  assert.match(text, /battery MCU 3\.\d\d V/);
  assert.is(await cell(12).getAttribute('aria-describedby'), await tip.getAttribute('id'));
  // Keyboard: a focused day shows its tooltip too.
  await cell(5).focus();
  await cell(5).locator('[role="tooltip"]').waitFor({ state: 'visible' });
  assert.match(await page.getByTestId('battery-forecast').innerText(), 'about 400 days left');
  assert.match(await page.getByTestId('signal-trend').innerText(), '-0.42 dB per day over 30 days');
  assert.match(await page.getByTestId('silence').innerText(), 'Not silent');
  const drift = page.getByTestId('drift');
  assert.match(await drift.innerText(), 'version');
  assert.match(await drift.innerText(), 'profile-1.0');
  assert.match(await drift.innerText(), '4.3.0');

  // The young device: "not enough data", and why.
  await page.goto(`${base}/fleet?device=${YOUNG}`);
  assert.match(await page.getByTestId('battery-forecast').locator('p').first().innerText(), 'Not enough data: 9 days of history in the last 30; the forecast needs at least 14.');
  // The silent device: its label with the evidence.
  await page.goto(`${base}/fleet?device=${SILENT}`);
  const silence = page.getByTestId('silence');
  await silence.locator('dl.evidence').waitFor();
  assert.match(await silence.innerText(), 'Battery exhausted, silent since');
  assert.match(await silence.innerText(), /last volts\s+3\.05/);
});

test('a group user sees only the devices of the user\'s groups; another organisation none of north\'s', async () => {
  const { rows } = await db.pool.query<Row>(`select d."IMEINumber", array_agg(l."GroupID") as groups from device_information d left join group_device_links l on l."DeviceID" = d."DeviceID"
     where d."OrganizationID" = 'north' and d.deleted_at is null group by 1`);
  const east = rows.filter((r) => r.groups.includes('north-east')).map((r) => r.IMEINumber as string).sort();
  const westOnly = rows.filter((r) => !r.groups.includes('north-east')).map((r) => r.IMEINumber as string);
  assert.ok(westOnly.length > 0 && east.length > 0);
  const want = await apiList('northEast');
  assert.equal([...want].sort(), east, 'the API lists exactly the east group');
  const page = await browserAs('northEast');
  await page.goto(`${base}/fleet?limit=200`);
  await listShows(page, want, 'the group user\'s list');
  const s = await api('/api/fleet/summary', 'northEast');
  assert.match(await page.getByTestId('status-line').innerText(), `${s.devices} devices`);
  const text = await page.locator('body').innerText();
  for (const imei of westOnly) assert.not.ok(text.includes(imei), `${imei} (north-west) is not shown to the east group`);
  // A device outside the reach: the panel says so, and shows nothing of it.
  const outside = westOnly.find((i) => i.startsWith(PREFIX)) ?? westOnly[0]!;
  await page.goto(`${base}/fleet?device=${outside}`);
  await page.getByTestId('device-panel').getByRole('alert').waitFor();
  assert.is(await page.getByTestId('day-strip').count(), 0);
  const south = await browserAs('southAdmin');
  await south.goto(`${base}/fleet?limit=200`);
  const southList = await listed(south);
  assert.equal(southList, await apiList('southAdmin'));
  assert.not.ok(southList.some((i) => rows.some((r) => r.IMEINumber === i)), 'no north device for south');
});

test('a masked organisation: the fleet view, its list, a strip and its tooltips name no fault class', async () => {
  await db.pool.query(`update organizations set "MaskFaultDetails" = true where "OrganizationID" = 'north'`);
  try {
    const page = await browserAs('northAdmin');
    const seen: string[] = [];
    for (const imei of [STRIP, SILENT]) {
      await page.goto(`${base}/fleet?limit=200&device=${imei}`);
      await page.getByTestId('day-strip').waitFor();
      await listed(page);
      seen.push(...await page.evaluate(() => {
        const out: string[] = [document.body.innerText];
        for (const el of document.querySelectorAll('[title], [aria-label]')) out.push(el.getAttribute('title') ?? '', el.getAttribute('aria-label') ?? '');
        for (const t of document.querySelectorAll('[role="tooltip"]')) out.push(t.textContent ?? '');
        return out;
      }) as string[]);
    }
    assert.ok(seen.join(' ').includes(STRIP) && seen.join(' ').includes('Battery exhausted'), 'the walk read the view');
    assert.equal(seen.flatMap(classWordsIn), []);
  } finally {
    await db.pool.query(`update organizations set "MaskFaultDetails" = false where "OrganizationID" = 'north'`);
  }
});

test('the view fits 1400x1100, 1366x768 and a tablet without scrolling sideways; a day\'s tooltip stays on screen (screenshot)', async () => {
  const fits = () => document.documentElement.scrollWidth <= document.documentElement.clientWidth;
  for (const viewport of [{ width: 1366, height: 768 }, { width: 768, height: 1024 }]) {
    const small = await site.browserAs(USERS.northAdmin, viewport);
    await small.goto(`${base}/fleet?device=${STRIP}`);
    await small.getByTestId('day-strip').waitFor();
    await listed(small);
    assert.ok(await small.evaluate(fits), `no horizontal scroll at ${viewport.width} px`);
  }
  const page = await browserAs('northAdmin');
  await page.goto(`${base}/fleet?filterBy=${encodeURIComponent('{"signal":{"eq":"falling"}}')}&device=${STRIP}`);
  await page.getByTestId('day-strip').waitFor();
  await listed(page);
  assert.ok(await page.evaluate(fits), 'no horizontal scroll at 1400 px');
  const cells = page.getByTestId('day-strip').locator('li.day-cell');
  for (const c of [cells.first(), cells.last()]) {
    await c.hover();
    const box = (await c.locator('[role="tooltip"]').boundingBox())!;
    assert.ok(box.x >= 0 && box.x + box.width <= 1400, `a tooltip at x ${box.x}..${box.x + box.width} stays on screen`);
  }
  await page.getByTestId('day-strip').locator(`li[data-day="${dayBefore(12)}"]`).hover();
  await screenshot(page, 'portal-fleet');
});

test.run();
