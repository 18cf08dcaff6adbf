// The web portal in a real browser (Debian's chromium via playwright-core) against the real app on a
// database filled through the real pipeline: every view as the fixture admin, a group user and a masked
// organisation, each checked against what the API answers for the same user. Screenshots go to
// test/artifacts/ (git-ignored); docs/portal/ holds copies for the README.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { createApp } from '../../../api/app.js';
import { createTokenService } from '../../../api/auth/tokens.js';
import { listen } from '../../../api/server.js';
import { ensurePortalBuilt } from '../../../portal/build.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { fillDatabase, JWT_SECRET, USERS } from '../api/seeded-api.js';
import { ensureChromium, launch, screenshot, signIn, type Browser } from './browser.js';

// Code passed to page.evaluate runs in the browser; the root tsconfig has no DOM lib, so these names are
// declared loosely here rather than pulling DOM types into every Node file.
/* eslint-disable @typescript-eslint/no-explicit-any */
declare const window: any;
declare const document: any;
declare const PerformanceObserver: any;
declare const localStorage: any;
/* eslint-enable @typescript-eslint/no-explicit-any */

const portalDist = new URL('../../../portal/dist/', import.meta.url).pathname;
let db: TestDatabase;
let server: { port: number; close(): Promise<void> };
let base: string;
const browsers: Browser[] = [];
const tokens: Record<string, string> = {};

interface Page_<T> { data: T[]; total: number }
type Row = Record<string, unknown>;

async function api<T>(user: keyof typeof USERS, path: string): Promise<T> {
  if (!tokens[user]) {
    const res = await fetch(`${base}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(USERS[user]) });
    tokens[user] = ((await res.json()) as { accessToken: string }).accessToken;
  }
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${tokens[user]}` } });
  assert.is(res.status, 200, `${path}: ${res.status}`);
  return (await res.json()) as T;
}

async function browserAs(user: keyof typeof USERS | null, viewport?: { width: number; height: number }): Promise<Page> {
  const b = await launch(viewport);
  browsers.push(b);
  if (user) await signIn(b.page, base, USERS[user]);
  return b.page;
}

const cellTexts = (page: Page, col: string) => page.locator(`table.data-table tbody td[data-col="${col}"]`).allInnerTexts();
const rowKeys = (page: Page) => page.locator('table.data-table tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key')));
const show = (v: unknown) => (v === null || v === undefined ? '—' : v === '' ? '(empty)' : String(v));

test.before(async () => {
  ensureChromium();
  await ensurePortalBuilt();
  db = await createTestDatabase('portal');
  await fillDatabase(db);
  const app = createApp({ readiness: {}, pool: db.pool, jwtSecret: JWT_SECRET, portalDir: portalDist });
  server = await listen(app, { port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${server.port}`;
});

test.after(async () => {
  for (const b of browsers) await b.close();
  await server?.close();
  await db?.drop();
});

test('the production bundle is under 500 KB gzipped', () => {
  const assets = join(portalDist, 'assets');
  let total = 0;
  for (const f of readdirSync(assets)) total += gzipSync(readFileSync(join(assets, f)), { level: 9 }).length;
  total += gzipSync(readFileSync(join(portalDist, 'index.html'))).length;
  console.log(`portal bundle: ${(total / 1024).toFixed(1)} KB gzipped (every file of portal/dist)`);
  assert.ok(total < 500 * 1024, `${total} bytes gzipped`);
});

test('the server: index.html for pages, immutable assets, API paths never shadowed', async () => {
  const page = await fetch(`${base}/data-log?page=2`, { headers: { accept: 'text/html' } });
  assert.is(page.status, 200);
  assert.is(page.headers.get('cache-control'), 'no-cache');
  assert.match(await page.text(), '<div id="app">');
  const asset = readdirSync(join(portalDist, 'assets')).find((f) => f.endsWith('.js'))!;
  const a = await fetch(`${base}/assets/${asset}`);
  assert.is(a.status, 200);
  assert.match(a.headers.get('cache-control') ?? '', 'immutable');
  assert.match(a.headers.get('content-type') ?? '', 'text/javascript');
  for (const path of ['/api/nope', '/device-records/nope', '/assets/missing.js', '/healthz/x']) {
    const r = await fetch(`${base}${path}`, { headers: { accept: 'text/html' } });
    assert.is(r.status, 404, path);
    assert.match(r.headers.get('content-type') ?? '', 'application/json', path);
  }
  assert.is((await fetch(`${base}/healthz`)).status, 200);
  assert.is((await fetch(`${base}/..%2f..%2fpackage.json`)).status, 404);
});

test('login: a wrong password says so; the admin signs in and lands on the map', async () => {
  const page = await browserAs(null);
  await page.goto(`${base}/`);
  await screenshot(page, 'portal-login');
  await page.getByLabel('Email').fill(USERS.northAdmin.email);
  await page.getByLabel('Password').fill('wrong-password-1');
  await page.getByRole('button', { name: 'Sign in' }).click();
  assert.match(await page.getByTestId('login-error').innerText(), 'Wrong email or password');
  await page.getByLabel('Password').fill(USERS.northAdmin.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}/map`);
  assert.match(await page.getByTestId('who').innerText(), 'admin@north.example');
});

test('map (admin): every device of map-data, legend by state, popup with the API fields, filters', async () => {
  const page = await browserAs('northAdmin');
  const { data } = await api<{ data: Row[] }>('northAdmin', '/api/device-records/map-data');
  const placed = data.filter((d) => d.Lat !== null && d.Long !== null);
  await page.waitForSelector('[data-testid="map"][data-markers-painted]');
  assert.is(await page.getByTestId('map').getAttribute('data-devices'), String(placed.length));
  const counts = await page.locator('.legend-count').allInnerTexts();
  assert.is(counts.reduce((s, n) => s + Number(n), 0), data.length, 'the legend counts every device');
  // One feeder trace for every power line with two or more located devices.
  const perLine = new Map<unknown, number>();
  for (const x of placed) if (x.PowerLineID) perLine.set(x.PowerLineID, (perLine.get(x.PowerLineID) ?? 0) + 1);
  const traced = [...perLine.values()].filter((n) => n >= 2).length;
  assert.ok(traced > 0, 'the fixtures put several devices on a power line');
  await page.waitForSelector(`[data-testid="map"][data-feeders="${traced}"]`);
  // Find a device with a check-in through the keyboard-reachable search, open its popup.
  const d = data.find((x) => x.LastCheckInTime !== null && x.Lat !== null)!;
  await page.getByLabel('Find a device').fill(String(d.IMEINumber));
  await page.locator('.matches button').first().click();
  const popup = page.locator('.leaflet-popup-content');
  await popup.waitFor();
  const text = await popup.innerText();
  for (const v of [d.Real_Name, d.IMEINumber, d.ActualOngoingFault, d.LastCheckInTime]) assert.match(text, String(v));
  await page.keyboard.press('Escape');
  await page.getByLabel('Find a device').fill('');
  await page.getByRole('button', { name: 'Zoom out' }).click();
  await page.waitForTimeout(400);
  // Power-line filter: the map shows exactly that line's devices.
  const line = String(placed[0]!.PowerLineID);
  await page.getByLabel('Power line').selectOption(line);
  // Preact renders after the change event: wait for the map to take the filter (or time out and fail).
  await page.waitForFunction((n: string) => document.querySelector('[data-testid="map"]')?.getAttribute('data-devices') === n, String(placed.filter((x) => x.PowerLineID === line).length));
  assert.is(await page.getByTestId('map').getAttribute('data-feeders'), perLine.get(line)! >= 2 ? '1' : '0', 'only the chosen power line is traced');
  await page.getByLabel('Power line').selectOption('');
  await page.getByLabel('Feeders (approximate route)').uncheck();
  await page.waitForSelector('[data-testid="map"][data-feeders="0"]');
  await page.getByLabel('Feeders (approximate route)').check();
  await page.waitForSelector(`[data-testid="map"][data-feeders="${traced}"]`);
  await page.waitForTimeout(300);
  await screenshot(page, 'portal-map');
});

test('map: the 30 s poll shows a device\'s new state without a reload', async () => {
  const b = await launch();
  browsers.push(b);
  // The page's clock is Playwright's: it runs in real time until fastForward jumps it past the poll.
  await b.page.clock.install();
  await signIn(b.page, base, USERS.northAdmin);
  const page = b.page;
  await page.waitForSelector('[data-testid="map"][data-markers-painted]');
  const { data } = await api<{ data: Row[] }>('northAdmin', '/api/device-records/map-data');
  const faulted = data.find((d) => !['None', 'Disconnected', 'No Data', 'Low Battery', null].includes(d.ActualOngoingFault as string | null))!;
  const healthy = data.find((d) => d.ActualOngoingFault === 'None')!;
  assert.ok(faulted && healthy, 'the fixtures hold a faulted and a healthy device');
  const countOf = async (state: string) => Number(await page.locator(`.legend li[data-state="${state}"] .legend-count`).innerText());
  const before = await countOf(String(faulted.ActualOngoingFault));
  const { rows: [saved] } = await db.pool.query('select "ActualOngoingFault" from device_latest where "IMEINumber" = $1', [healthy.IMEINumber]);
  await db.pool.query('update device_latest set "ActualOngoingFault" = (select "ActualOngoingFault" from device_latest where "IMEINumber" = $1) where "IMEINumber" = $2', [faulted.IMEINumber, healthy.IMEINumber]);
  try {
    await new Promise((r) => setTimeout(r, 1100)); // past the API's one-second map-data cache
    await page.clock.fastForward(30_000);
    await page.waitForFunction(([state, n]) => document.querySelector(`.legend li[data-state="${state}"] .legend-count`)?.textContent === n, [String(faulted.ActualOngoingFault), String(before + 1)] as const);
  } finally {
    await db.pool.query('update device_latest set "ActualOngoingFault" = $1 where "IMEINumber" = $2', [saved.ActualOngoingFault, healthy.IMEINumber]);
  }
});

test('critical faults: newest first as critical-data, spec 3.4 fields shown, refresh keeps the scroll position without layout shift', async () => {
  const page = await browserAs('northAdmin', { width: 1366, height: 500 });
  await page.goto(`${base}/critical`);
  await page.waitForSelector('table.data-table tbody tr');
  const api0 = await api<Page_<Row>>('northAdmin', '/api/device-records/critical-data?page=0&limit=50');
  assert.ok(api0.data.length > 0, 'the fixtures hold critical events');
  assert.equal(await rowKeys(page), api0.data.map((e) => `${e.Source}:${e.SourceID}`));
  assert.equal(await cellTexts(page, 'EventTimestamp'), api0.data.map((e) => show(e.EventTimestamp)));
  assert.equal(await cellTexts(page, 'PermanentFaultResetCurrentThreshold'), api0.data.map((e) => show(e.PermanentFaultResetCurrentThreshold)));
  assert.equal(await cellTexts(page, 'PostEventRef'), api0.data.map((e) => show(e.PostEventRef)));
  assert.equal(await cellTexts(page, 'FaultCurrent'), api0.data.map((e) => show(e.FaultCurrent)));
  assert.ok(api0.data.some((e) => e.PermanentFaultResetCurrentThreshold !== null || e.PostEventRef !== null), 'the fixtures exercise spec 3.4');
  await screenshot(page, 'portal-critical');
  // Scroll, then wait through a refresh (5 s): same position, no layout shift after the first paint.
  await page.evaluate(() => {
    window.__shift = 0;
    new PerformanceObserver((list: { getEntries(): unknown[] }) => {
      for (const e of list.getEntries() as unknown as { value: number; hadRecentInput: boolean }[]) if (!e.hadRecentInput) window.__shift += e.value;
    }).observe({ type: 'layout-shift', buffered: false });
  });
  await page.evaluate(() => window.scrollTo(0, 200));
  const before = await page.evaluate(() => window.scrollY);
  const first = await page.getByTestId('status-line').innerText();
  await page.waitForFunction((t) => { const s = document.querySelector('[data-testid="status-line"]')?.textContent ?? ''; return s !== t && !s.includes('refreshing'); }, first, { timeout: 15_000 });
  assert.is(await page.evaluate(() => window.scrollY), before);
  const shift = await page.evaluate(() => window.__shift);
  assert.ok(shift < 0.01, `layout shift during refresh: ${shift}`);
});

test('data log: the URL is the API query; sorting and filtering rewrite it; rows equal data-log', async () => {
  const page = await browserAs('northAdmin');
  const query = `limit=5&sortBy=${encodeURIComponent(JSON.stringify({ field: 'AverageCurrent1m', order: 'asc' }))}`;
  await page.goto(`${base}/data-log?${query}`);
  await page.waitForSelector('table.data-table tbody tr');
  let expected = await api<Page_<Row>>('northAdmin', `/api/device-records/data-log?${query}`);
  assert.equal(await rowKeys(page), expected.data.map((r) => String(r.RecordID)));
  assert.equal(await cellTexts(page, 'date'), expected.data.map((r) => show(r.date)));
  assert.equal(await cellTexts(page, 'ActualOngoingFault'), expected.data.map((r) => show(r.ActualOngoingFault)));
  assert.match(await page.getByTestId('pager-text').innerText(), `of ${expected.total}`);
  // Sort by IMEI (a click on the header button): URL and rows follow.
  await page.locator('button.sort[data-sort="IMEINumber"]').click();
  await page.waitForURL(/sortBy=.*IMEINumber/);
  const url = new URL(page.url());
  expected = await api<Page_<Row>>('northAdmin', `/api/device-records/data-log?${url.searchParams.toString()}`);
  await page.waitForFunction((first) => document.querySelector('table.data-table tbody tr')?.getAttribute('data-key') === first, String(expected.data[0]!.RecordID));
  assert.equal(await rowKeys(page), expected.data.map((r) => String(r.RecordID)));
  // Next page.
  await page.getByRole('button', { name: 'Next →' }).click();
  await page.waitForURL(/page=1/);
  // Filter by IMEI: filterBy in the URL, only that IMEI in the table.
  const imei = String(expected.data[0]!.IMEINumber);
  await page.getByLabel('IMEI contains').fill(imei);
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.waitForURL(/filterBy=/);
  const filtered = new URL(page.url());
  assert.not.ok(filtered.searchParams.has('page'), 'a new filter starts at page 0');
  expected = await api<Page_<Row>>('northAdmin', `/api/device-records/data-log?${filtered.searchParams.toString()}`);
  await page.waitForFunction((n) => document.querySelectorAll('table.data-table tbody tr').length === n, expected.data.length);
  assert.equal(await rowKeys(page), expected.data.map((r) => String(r.RecordID)));
  assert.ok((await cellTexts(page, 'IMEINumber')).every((t) => t.includes(imei)));
  // The shared URL, opened in a fresh page, shows the same rows.
  const shared = await page.context().newPage();
  await shared.goto(page.url());
  await shared.waitForSelector('table.data-table tbody tr');
  assert.equal(await rowKeys(shared), await rowKeys(page));
  await shared.close();
  // A query with no rows says what to do.
  await page.goto(`${base}/data-log?from=20000101&to=20000102`);
  assert.match(await page.locator('.notice-empty').innerText(), 'Widen the date range');
  await page.goto(`${base}/data-log?limit=25`);
  await page.waitForSelector('table.data-table tbody tr');
  await screenshot(page, 'portal-data-log');
});

test('devices: summary cards equal device-summary; the list equals all-devices', async () => {
  const page = await browserAs('northAdmin');
  await page.goto(`${base}/devices`);
  await page.waitForSelector('table.data-table tbody tr');
  const s = await api<Row & { byActualOngoingFault: { ActualOngoingFault: string; count: number }[] }>('northAdmin', '/api/device-records/device-summary');
  const card = async (id: string) => (await page.getByTestId(id).locator('.card-value').innerText()).trim();
  assert.is(await card('card-total'), String(s.totalDevices));
  assert.is(await card('card-offline'), String(s.offline));
  assert.is(await card('card-low-battery'), String(s.lowBattery));
  for (const b of s.byActualOngoingFault) assert.is(await card(`card-state-${b.ActualOngoingFault}`), String(b.count));
  const list = await api<Page_<Row>>('northAdmin', '/api/device-records/all-devices');
  assert.equal(await rowKeys(page), list.data.map((d) => String(d.IMEINumber)));
  assert.equal(await cellTexts(page, 'LastCheckInTime'), list.data.map((d) => show(d.LastCheckInTime)));
  await screenshot(page, 'portal-devices');
});

test('device page: details, load-history charts, events and check-ins of one device', async () => {
  const page = await browserAs('northAdmin');
  const list = await api<Page_<Row>>('northAdmin', '/api/device-records/all-devices?limit=500');
  // The device with the most load history and at least one event.
  let best: { imei: string; n: number } | null = null;
  for (const d of list.data) {
    const imei = String(d.IMEINumber);
    const lh = await api<Page_<Row>>('northAdmin', `/api/device-records/device-information/load-history/${imei}`);
    const ev = await api<Page_<Row>>('northAdmin', `/api/device-records/device-information/events/${imei}`);
    if (ev.total > 0 && (!best || lh.total > best.n)) best = { imei, n: lh.total };
  }
  assert.ok(best && best.n > 0, 'a fixture device has events and load history');
  const info = await api<Row>('northAdmin', `/api/device-records/device-information/${best!.imei}`);
  await page.goto(`${base}/devices/${best!.imei}`);
  await page.waitForSelector('[data-testid="peak-chart"][data-ready="true"]');
  assert.is(await page.locator('#device-title').innerText(), String(info.Real_Name));
  const details = await page.getByTestId('device-details').innerText();
  for (const v of [info.IMEINumber, info.LastCheckInTime, info.PowerLineName]) assert.match(details, String(v));
  assert.ok(await page.locator('[data-testid="peak-chart"] canvas').count() > 0, 'uPlot drew the peak chart');
  assert.ok(await page.locator('[data-testid="hourly-chart"] canvas').count() > 0, 'uPlot drew the hourly chart');
  const events = await api<Page_<Row>>('northAdmin', `/api/device-records/device-information/events/${best!.imei}?limit=25`);
  const eventRows = await page.locator('table.data-table').first().locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key')));
  assert.equal(eventRows, events.data.map((e) => `${e.EventTable}:${e.Event_Record_ID}`));
  const records = await api<Page_<Row>>('northAdmin', `/api/device-records/device-information/data-log/${best!.imei}`);
  const recordRows = await page.locator('table.data-table').nth(1).locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key')));
  assert.equal(recordRows, records.data.map((r) => String(r.RecordID)));
  await screenshot(page, 'portal-device');
  // A range with nothing in it empties chart and events with a hint.
  await page.goto(`${base}/devices/${best!.imei}?from=20000101&to=20000102`);
  await page.locator('.notice-empty', { hasText: 'No load history in this range' }).waitFor();
  await page.locator('.notice-empty', { hasText: 'No events in this range' }).waitFor();
});

test('group user: sees exactly the devices of their group, never the other group\'s', async () => {
  const page = await browserAs('northEast');
  const mine = await api<{ data: Row[] }>('northEast', '/api/device-records/map-data');
  const all = await api<{ data: Row[] }>('northAdmin', '/api/device-records/map-data');
  const mineSet = new Set(mine.data.map((d) => String(d.IMEINumber)));
  const others = all.data.map((d) => String(d.IMEINumber)).filter((i) => !mineSet.has(i));
  assert.ok(mine.data.length > 0 && others.length > 0, 'the fixture splits the organisation into groups');
  await page.waitForSelector('[data-testid="map"][data-markers-painted]');
  const placed = mine.data.filter((d) => d.Lat !== null && d.Long !== null).length;
  assert.is(await page.getByTestId('map').getAttribute('data-devices'), String(placed));
  await page.goto(`${base}/devices?limit=200`);
  await page.waitForSelector('table.data-table tbody tr');
  const listed = await rowKeys(page);
  assert.equal([...listed].sort(), [...mineSet].sort());
  await page.goto(`${base}/data-log?limit=200`);
  await page.waitForSelector('table.data-table tbody tr');
  const imeis = new Set(await cellTexts(page, 'IMEINumber'));
  for (const other of others) assert.not.ok(imeis.has(other), `data log shows ${other} of another group`);
  await page.goto(`${base}/critical`);
  await page.waitForSelector('table.data-table tbody tr, .notice-empty');
  const critical = new Set(await cellTexts(page, 'IMEINumber'));
  for (const other of others) assert.not.ok(critical.has(other), `critical shows ${other} of another group`);
  // Another group's device page is a not-found with a way back.
  await page.goto(`${base}/devices/${others[0]}`);
  assert.match(await page.locator('.notice-error').innerText(), 'Not found, or not in your groups');
  await screenshot(page, 'portal-group-user');
});

test('masked organisation: fault states only None / Fault, as the API returns them', async () => {
  const page = await browserAs('southAdmin');
  await page.goto(`${base}/data-log?limit=200`);
  await page.waitForSelector('table.data-table tbody tr');
  const shown = new Set([...await cellTexts(page, 'ActualOngoingFault'), ...await cellTexts(page, 'Ongoing_fault')]);
  const expected = await api<Page_<Row>>('southAdmin', '/api/device-records/data-log?limit=200');
  assert.equal(await cellTexts(page, 'ActualOngoingFault'), expected.data.map((r) => show(r.ActualOngoingFault)));
  for (const v of shown) assert.ok(['None', 'Fault', '—'].includes(v), `masked view shows ${v}`);
  await page.goto(`${base}/map`);
  await page.waitForSelector('[data-testid="map"][data-markers-painted]');
  const legend = await page.locator('.legend li').evaluateAll((li) => li.map((l) => l.getAttribute('data-state')));
  for (const s of legend) assert.ok(['None', 'Fault', 'Communication lost', 'No check-in yet'].includes(String(s)), `masked legend shows ${s}`);
  await screenshot(page, 'portal-masked-map');
});

test('session: an expired token signs out with a message; a token expiring while open does too', async () => {
  const page = await browserAs(null);
  await page.goto(`${base}/`);
  const issue = async (expiresInS: number) => {
    const nowS = Math.floor(Date.now() / 1000);
    const svc = createTokenService({ secret: JWT_SECRET, nowS: () => nowS - 86_400 + expiresInS });
    // user id 1 exists (the fixture's first user); the claims are what the login would issue.
    return svc.sign({ userId: 1, org: 'north', role: 'admin', timeZone: 'America/Chicago' });
  };
  await page.evaluate((t) => localStorage.setItem('faultline.session', JSON.stringify({ token: t, email: 'admin@north.example' })), await issue(-10));
  await page.goto(`${base}/map`);
  assert.match(await page.getByTestId('session-message').innerText(), 'sign-ins last 24 hours');
  await page.evaluate((t) => localStorage.setItem('faultline.session', JSON.stringify({ token: t, email: 'admin@north.example' })), await issue(3));
  await page.goto(`${base}/devices`);
  await page.getByTestId('who').waitFor();
  await page.locator('table.data-table tbody tr').first().waitFor(); // the token works until it expires
  await page.getByTestId('session-message').waitFor({ timeout: 10_000 });
  // The expiry message, not the one for a token the server refused.
  assert.match(await page.getByTestId('session-message').innerText(), 'sign-ins last 24 hours');
  await screenshot(page, 'portal-session-expired');
});

test('keyboard, 1366x768 and tablet: skip link, focusable sort buttons, no horizontal page overflow', async () => {
  const page = await browserAs('northAdmin');
  await page.goto(`${base}/data-log`);
  await page.waitForSelector('table.data-table tbody tr');
  await page.keyboard.press('Tab');
  assert.is(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
  await page.keyboard.press('Enter');
  // Tab until a sort button has focus, then Enter sorts.
  for (let i = 0; i < 25; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(() => document.activeElement?.classList.contains('sort'))) break;
  }
  assert.ok(await page.evaluate(() => document.activeElement?.classList.contains('sort')), 'a sort button is reachable by Tab');
  await page.keyboard.press('Enter');
  await page.waitForURL(/sortBy=/);
  for (const path of ['/map', '/critical', '/data-log', '/devices']) {
    await page.goto(`${base}${path}`);
    await page.waitForSelector('h1');
    await page.waitForTimeout(300);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${path} overflows at 1366x768`);
  }
  const tablet = await browserAs('northAdmin', { width: 768, height: 1024 });
  for (const path of ['/map', '/critical', '/data-log', '/devices']) {
    await tablet.goto(`${base}${path}`);
    await tablet.waitForSelector('h1');
    await tablet.waitForTimeout(300);
    assert.ok(await tablet.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${path} overflows on a tablet`);
  }
  await tablet.goto(`${base}/map`);
  await tablet.waitForSelector('[data-testid="map"][data-markers-painted]');
  await screenshot(tablet, 'portal-map-tablet');
});

test.run();
