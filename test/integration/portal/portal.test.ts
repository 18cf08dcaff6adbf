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
import { createTokenService } from '../../../api/auth/tokens.js';
import { assertNoPageErrors, hoverMapUntil, mapPixel, screenshot } from '../../../support/browser.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { checkPageErrorsAfterEach, PORTAL_DIST as portalDist, servePortal, type PortalSite } from '../../../support/portal-site.js';
import { fillDatabase, JWT_SECRET, USERS } from '../api/seeded-api.js';

// Code passed to page.evaluate runs in the browser; the root tsconfig has no DOM lib, so these names are
// declared loosely here rather than pulling DOM types into every Node file.
/* eslint-disable @typescript-eslint/no-explicit-any */
declare const window: any;
declare const document: any;
declare const PerformanceObserver: any;
declare const localStorage: any;
/* eslint-enable @typescript-eslint/no-explicit-any */

let db: TestDatabase;
let site: PortalSite;
let base: string;
const tokens: Record<string, string> = {};

interface Page_<T> { data: T[]; total: number }
type Row = Record<string, unknown>;

async function api<T>(user: keyof typeof USERS, path: string): Promise<T> {
  if (!tokens[user]) {
    const res = await fetch(`${base}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(USERS[user]) });
    tokens[user] = ((await res.json()) as { accessToken: string }).accessToken;
  }
  // As the portal asks (portal/src/api/client.ts): times to the second.
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${tokens[user]}`, 'x-time-precision': 'seconds' } });
  assert.is(res.status, 200, `${path}: ${res.status}`);
  return (await res.json()) as T;
}

async function browserAs(user: keyof typeof USERS | null, viewport?: { width: number; height: number }): Promise<Page> {
  const page = await site.browserAs(user ? USERS[user] : null, viewport);
  // The board is the landing view (portal/src/views/board.tsx); these tests start on the map, as before.
  if (user) await page.goto(`${base}/map`);
  return page;
}

const cellTexts = (page: Page, col: string) => page.locator(`table.data-table tbody td[data-col="${col}"]`).allInnerTexts();
/** The critical list's IMEIs: under each device's name (portal/src/views/critical.tsx). */
const criticalImeis = (page: Page) => page.locator('table.data-table tbody td[data-col="Real_Name"] [data-imei]').allInnerTexts();
const rowKeys = (page: Page) => page.locator('table.data-table tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key')));
const show = (v: unknown) => (v === null || v === undefined ? '—' : v === '' ? '(empty)' : String(v));

test.before(async () => {
  db = await createTestDatabase('portal');
  await fillDatabase(db);
  site = await servePortal({ pool: db.pool, jwtSecret: JWT_SECRET });
  base = site.base;
});

checkPageErrorsAfterEach(test);

test.after(async () => {
  try { await site?.close(); } finally { await db?.drop(); }
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

test('login: a wrong password says so; the admin signs in and lands on the board', async () => {
  const page = await browserAs(null);
  await page.goto(`${base}/`);
  await screenshot(page, 'portal-login');
  await page.getByLabel('Email').fill(USERS.northAdmin.email);
  await page.getByLabel('Password').fill('wrong-password-1');
  await page.getByRole('button', { name: 'Sign in' }).click();
  assert.match(await page.getByTestId('login-error').innerText(), 'Wrong email or password');
  await page.getByLabel('Password').fill(USERS.northAdmin.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}/board`);
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
  await page.getByLabel('Feeders', { exact: true }).uncheck();
  await page.waitForSelector('[data-testid="map"][data-feeders="0"]');
  await page.getByLabel('Feeders', { exact: true }).check();
  await page.waitForSelector(`[data-testid="map"][data-feeders="${traced}"]`);
  await page.waitForTimeout(300);
  await screenshot(page, 'portal-map');
});


test('map: a feeder answers hover with its tooltip and a click filters the map to it', async () => {
  const page = await browserAs('northAdmin');
  await page.waitForSelector('[data-testid="map"][data-feeders]');
  await page.waitForSelector('[data-testid="map"][data-view]');
  const { data } = await api<{ data: Row[] }>('northAdmin', '/api/device-records/map-data');
  // North F12 and F7 alternate along one diagonal: halfway from F12's first device to F7's first lies only F12's route.
  const f12 = data.filter((d) => d.PowerLineID === 'north-F12' && d.Lat !== null).sort((a, b) => Number(a.Lat) - Number(b.Lat))[0]!;
  const f7 = data.filter((d) => d.PowerLineID === 'north-F7' && d.Lat !== null).sort((a, b) => Number(a.Lat) - Number(b.Lat))[0]!;
  assert.ok(Number(f12.Lat) < Number(f7.Lat));
  // A quarter of the way along F12's first segment: before F7's first device, so on F12's route alone.
  const next12 = data.filter((d) => d.PowerLineID === 'north-F12' && d.Lat !== null).sort((a, b) => Number(a.Lat) - Number(b.Lat))[1]!;
  assert.ok(Number(next12.Lat) > Number(f7.Lat), 'the fixture alternates F12 and F7 along the diagonal');
  const onRoute = () => mapPixel(page, (3 * Number(f12.Lat) + Number(next12.Lat)) / 4, (3 * Number(f12.Long) + Number(next12.Long)) / 4);
  const tooltip = page.locator('.leaflet-tooltip.feeder-tooltip');
  await hoverMapUntil(page, 'the F12 feeder tooltip on a hover', onRoute, tooltip);
  assert.match(await tooltip.innerText(), `${f12.PowerLineName}: approximate route`);
  const at = await onRoute();
  await page.mouse.click(at.x, at.y);
  await page.waitForFunction(() => (document.querySelector('select[name="powerLine"]') as { value: string } | null)?.value === 'north-F12');
  await page.waitForSelector('[data-testid="map"][data-feeders="1"]');
  assert.is(await page.getByTestId('map').getAttribute('data-devices'), String(data.filter((d) => d.PowerLineID === 'north-F12' && d.Lat !== null).length));
});

test('map: leaving the map (critical faults, a device page, back) throws no page error', async () => {
  const page = await browserAs('northAdmin');
  await page.waitForSelector('[data-testid="map"][data-markers-painted]');
  await page.getByRole('link', { name: 'Critical faults' }).click();
  await page.waitForSelector('table.data-table tbody tr');
  await page.waitForTimeout(300);
  await page.goBack();
  await page.waitForSelector('[data-testid="map"][data-markers-painted]');
  await page.getByLabel('Find a device').fill('8610000000001');
  await page.locator('.matches button').first().click();
  await page.getByRole('link', { name: 'Open device page' }).click();
  await page.waitForSelector('#device-title');
  await page.waitForTimeout(300);
  assertNoPageErrors();
});

test('map without internet: the offline base layer from the build, a scale bar, "fit all devices", settings that fit at 768 px', async () => {
  const b = await site.open({ width: 1366, height: 768 });
  const outside: string[] = [];
  // Nothing but the portal's own origin answers: what a control room without internet sees.
  await b.context.route('**/*', (route) => {
    if (route.request().url().startsWith(base)) return route.continue();
    outside.push(route.request().url());
    return route.abort('internetdisconnected');
  });
  await site.signIn(b.page, USERS.northAdmin);
  const page = b.page;
  await page.goto(`${base}/map`);
  await page.waitForSelector('[data-testid="map"][data-base-layer*="states"]');
  assert.match(String(await page.getByTestId('map').getAttribute('data-base-layer')), 'land countries states');
  // Zoomed in on Chicago (the fixture devices) the county lines are drawn too.
  await page.waitForSelector('[data-testid="map"][data-base-layer*="counties"]');
  assert.equal(outside, [], 'no request left the portal');
  const scale = page.locator('.leaflet-control-scale-line').first();
  const wide = await scale.innerText();
  await page.getByLabel('Find a device').fill('8610000000001');
  await page.locator('.matches button').first().click();
  await page.waitForFunction((w) => document.querySelector('.leaflet-control-scale-line')?.textContent !== w, wide);
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Fit all devices' }).click();
  await page.waitForFunction((w) => document.querySelector('.leaflet-control-scale-line')?.textContent === w, wide);
  // Zoomed out to the region: state and county lines place the feeders for a crew.
  await page.locator('.leaflet-popup-close-button').click().catch(() => undefined);
  await page.getByLabel('Find a device').fill('');
  for (let i = 0; i < 4; i++) {
    await page.getByRole('button', { name: 'Zoom out' }).click();
    await page.waitForTimeout(350);
  }
  await screenshot(page, 'portal-map-offline');
  // Map settings at 1366x768: the whole form is on screen without scrolling the page.
  await page.getByRole('button', { name: 'Map settings' }).click();
  const save = page.getByRole('button', { name: 'Save' });
  await save.waitFor();
  await page.waitForTimeout(200);
  const box = (await save.boundingBox())!;
  assert.ok(box.y >= 0 && box.y + box.height <= 768, `Save at ${box.y}`);
  assert.is(await page.evaluate(() => window.scrollY), 0);
  assert.ok(await page.evaluate(() => document.documentElement.scrollHeight <= window.innerHeight + 1), 'the page does not scroll');
});

test('map: the 30 s poll shows a device\'s new state without a reload', async () => {
  const b = await site.open();
  // The page's clock is Playwright's: it runs in real time until fastForward jumps it past the poll.
  await b.page.clock.install();
  await site.signIn(b.page, USERS.northAdmin);
  const page = b.page;
  await page.goto(`${base}/map`);
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

const FAULTS_ONLY = `filterBy=${encodeURIComponent(JSON.stringify({ EventType: { eq: 'Fault' } }))}`;

test('critical faults: fault events of critical-data newest first, spec 3.4 shown, refresh keeps the scroll position without layout shift', async () => {
  const page = await browserAs('northAdmin', { width: 1366, height: 500 });
  await page.goto(`${base}/critical`);
  await page.waitForSelector('table.data-table tbody tr');
  const api0 = await api<Page_<Row>>('northAdmin', `/api/device-records/critical-data?page=0&limit=50&${FAULTS_ONLY}`);
  assert.ok(api0.data.length > 0, 'the fixtures hold critical events');
  assert.equal(await rowKeys(page), api0.data.map((e) => `${e.Source}:${e.SourceID}`));
  assert.equal(await cellTexts(page, 'EventTimestamp'), api0.data.map((e) => show(e.EventTimestamp)));
  assert.equal(await cellTexts(page, 'PermanentFaultResetCurrentThreshold'), api0.data.map((e) => show(e.PermanentFaultResetCurrentThreshold)));
  assert.equal(await cellTexts(page, 'FaultCurrent'), api0.data.map((e) => show(e.FaultCurrent)));
  assert.ok(api0.data.every((e) => e.EventType !== 'Model Change'), 'model changes are not mixed into the faults by default');
  // The post-event reference is the label of the current it qualifies (Fault Like, Fault <50: RecoverCurrent).
  const recover = await cellTexts(page, 'RecoverCurrent');
  const withRef = api0.data.map((e, i) => [e, recover[i]!] as const).filter(([e]) => e.PostEventRef !== null);
  assert.ok(withRef.length > 0, 'the fixtures exercise PostEventRef');
  for (const [e, text] of withRef) assert.is(text.replace(/\s+/g, ' ').trim(), `${e.PostEventRef} ${show(e.RecoverCurrent)}`);
  assert.is(await page.locator('th', { hasText: 'Post-event reference' }).count(), 0, 'no column of its own');
  // Severity by colour and word.
  const severity = await cellTexts(page, 'severity');
  assert.ok(severity.every((t) => ['Critical', 'High', 'Medium'].includes(t)), severity.join());
  assert.is(severity[api0.data.findIndex((e) => e.EventType === 'PFault')], 'Critical');
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
  const first = await page.getByTestId('status-line').getAttribute('data-updated');
  await page.waitForFunction((t) => { const s = document.querySelector('[data-testid="status-line"]'); return s?.getAttribute('data-updated') !== t && !s?.textContent?.includes('refreshing'); }, first, { timeout: 15_000 });
  assert.is(await page.evaluate(() => window.scrollY), before);
  const shift = await page.evaluate(() => window.__shift);
  assert.ok(shift < 0.01, `layout shift during refresh: ${shift}`);
});

test('critical faults for triage: filters by event type, power line and days; model changes on their own; the state now in view at 1366 px', async () => {
  const page = await browserAs('northAdmin');
  await page.goto(`${base}/critical`);
  await page.waitForSelector('table.data-table tbody tr');
  // The device's state now (map-data), next to the event, inside 1366 px.
  const now = new Map((await api<{ data: Row[] }>('northAdmin', '/api/device-records/map-data')).data.map((d) => [d.IMEINumber, d.ActualOngoingFault]));
  const imeis = await criticalImeis(page);
  await page.waitForFunction(() => document.querySelector('td[data-col="now"] .badge') !== null);
  assert.equal(await cellTexts(page, 'now'), imeis.map((i) => show(now.get(i))));
  const box = await page.locator('td[data-col="now"]').first().boundingBox();
  assert.ok(box && box.x + box.width <= 1366, `state now at x ${box?.x}+${box?.width}`);
  // Model changes behind their own choice.
  await page.getByLabel('Event type').selectOption('Model Change');
  await page.waitForURL(/type=Model\+Change/);
  const changes = await api<Page_<Row>>('northAdmin', `/api/device-records/critical-data?filterBy=${encodeURIComponent(JSON.stringify({ EventType: { eq: 'Model Change' } }))}`);
  assert.ok(changes.total > 0, 'the fixtures hold a model change');
  await page.waitForFunction((n) => document.querySelectorAll('table.data-table tbody tr').length === n && [...document.querySelectorAll('td[data-col="EventType"]')].every((td) => td.textContent === 'Model Change'), changes.data.length);
  assert.equal(await cellTexts(page, 'severity'), changes.data.map(() => 'Info'));
  // One class of fault, then a power line on top of it.
  await page.getByLabel('Event type').selectOption('PFault');
  await page.waitForURL(/type=PFault/);
  const line = 'north-F7';
  await page.getByLabel('Power line').selectOption(line);
  await page.waitForURL(/line=north-F7/);
  const pf = await api<Page_<Row>>('northAdmin', `/api/device-records/critical-data?filterBy=${encodeURIComponent(JSON.stringify({ EventType: { eq: 'PFault' }, PowerLineID: { eq: line } }))}`);
  assert.ok(pf.total > 0);
  await page.waitForFunction((keys) => JSON.stringify([...document.querySelectorAll('table.data-table tbody tr')].map((r) => r.getAttribute('data-key'))) === keys, JSON.stringify(pf.data.map((e) => `${e.Source}:${e.SourceID}`)));
  // Days typed as YYYY-MMM-DD: a day with no events empties the list with a hint.
  await page.getByLabel('From').fill('2000-Jan-01');
  await page.getByLabel('From').press('Enter');
  await page.getByLabel('To').fill('2000-Jan-02');
  await page.getByLabel('To').press('Enter');
  await page.waitForURL(/to=20000102/);
  assert.match(new URL(page.url()).search, 'from=20000101');
  assert.match(await page.locator('.notice-empty').innerText(), 'Widen the filters');
  // A day that is not one says how to write it and changes nothing.
  await page.getByLabel('From').fill('11/23/26');
  await page.getByLabel('From').press('Enter');
  assert.match(await page.locator('.field-error').innerText(), '2026-Nov-23');
  assert.match(new URL(page.url()).search, 'from=20000101');
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

test('data log: the fault filter offers every state; a page past the end offers the pager; readings carry units; one clock', async () => {
  const page = await browserAs('northAdmin');
  await page.goto(`${base}/data-log?limit=5`);
  await page.waitForSelector('table.data-table tbody tr');
  const options = await page.locator('select[name="fault"] option').allInnerTexts();
  for (const state of ['None', 'Decision', 'Temporary', 'Permanent', 'Over Current', 'Current Reset', 'Probable Temp Fault', 'Disconnected', 'No Data', 'Low Battery', 'DM1 Port 1 Fault']) {
    assert.ok(options.includes(state), `fault filter offers ${state}`);
  }
  assert.ok(await page.locator('th', { hasText: 'RSSI (dBm)' }).count() === 1, 'RSSI carries its unit');
  // One clock: the status line in the user's zone, named, in the API's format.
  assert.match(await page.getByTestId('status-line').innerText(), /^Updated \d{4}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} (AM|PM) \(America\/Chicago\)/);
  assert.is(await page.locator('input[type="date"]').count(), 0, 'no locale-formatted date fields');
  // Past the end: a notice, the pager, and a way back.
  await page.goto(`${base}/data-log?limit=5&page=400`);
  assert.match(await page.locator('.notice-empty').innerText(), 'Page 401 is past the end');
  assert.ok(await page.getByTestId('pager-text').isVisible(), 'the pager is offered');
  await page.getByRole('button', { name: 'Go to the last page' }).click();
  await page.waitForSelector('table.data-table tbody tr');
  const total = (await api<Page_<Row>>('northAdmin', '/api/device-records/data-log?limit=5')).total;
  assert.match(new URL(page.url()).search, `page=${Math.ceil(total / 5) - 1}`);
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

test('devices: a summary card filters the list to what it counts; state and power-line filters; sort by state', async () => {
  const page = await browserAs('northAdmin');
  await page.goto(`${base}/devices`);
  await page.waitForSelector('table.data-table tbody tr');
  const s = await api<Row & { byActualOngoingFault: { ActualOngoingFault: string; count: number }[] }>('northAdmin', '/api/device-records/device-summary');
  const rows = () => page.locator('table.data-table tbody tr').count();
  const waitRows = (n: number) => page.waitForFunction((k) => document.querySelectorAll('table.data-table tbody tr').length === k || (k === 0 && document.querySelector('.notice-empty') !== null), n);
  const permanent = s.byActualOngoingFault.find((b) => b.ActualOngoingFault === 'Permanent')!;
  await page.getByTestId('card-state-Permanent').click();
  await page.waitForURL(/filterBy=.*Permanent/);
  await waitRows(permanent.count);
  assert.ok((await cellTexts(page, 'ActualOngoingFault')).every((t) => t === 'Permanent'));
  for (const [id, count] of [['card-offline', s.offline], ['card-online', s.online], ['card-never', s.neverCheckedIn], ['card-low-battery', s.lowBattery]] as const) {
    await page.getByTestId(id).click();
    await waitRows(Number(count));
    assert.is(await rows(), Number(count), id);
    assert.is(await page.getByTestId(id).getAttribute('aria-pressed'), 'true', id);
  }
  await page.getByTestId('card-total').click();
  await waitRows(Number(s.totalDevices));
  // State and power line filters, sort by state.
  await page.locator('select[name="state"]').selectOption('None');
  await page.waitForURL(/filterBy=.*None/);
  const none = s.byActualOngoingFault.find((b) => b.ActualOngoingFault === 'None')!.count;
  await waitRows(none);
  await page.locator('select[name="state"]').selectOption('');
  await page.getByLabel('Power line').selectOption('north-F7');
  const f7 = await api<Page_<Row>>('northAdmin', `/api/device-records/all-devices?filterBy=${encodeURIComponent(JSON.stringify({ PowerLineID: { eq: 'north-F7' } }))}`);
  await page.waitForFunction((keys) => JSON.stringify([...document.querySelectorAll('table.data-table tbody tr')].map((r) => r.getAttribute('data-key'))) === keys, JSON.stringify(f7.data.map((d) => d.IMEINumber)));
  await page.locator('button.sort[data-sort="ActualOngoingFault"]').click();
  await page.waitForURL(/sortBy=.*ActualOngoingFault/);
  const sorted = await api<Page_<Row>>('northAdmin', `/api/device-records/all-devices?${new URL(page.url()).searchParams.toString()}`);
  await page.waitForFunction((keys) => JSON.stringify([...document.querySelectorAll('table.data-table tbody tr')].map((r) => r.getAttribute('data-key'))) === keys, JSON.stringify(sorted.data.map((d) => d.IMEINumber)));
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
  // One range control for chart, events and check-ins; the power source as elsewhere; the zone named.
  assert.is(await page.locator('input[name="from"]').count(), 1, 'one date range control');
  const latest = info.latestRecord as Row;
  assert.match(details, `Power${latest.BatteryOrLine === 0 ? 'Line (0)' : 'Battery (1)'}`.replace('Power', ''));
  assert.match(await page.locator('.charts').innerText(), 'America/Chicago');
  assert.match(await page.getByTestId('hourly-chart').innerText(), 'America/Chicago');
  await screenshot(page, 'portal-device');
  // The range control drives all three: a range with nothing in it empties chart, events and check-ins.
  await page.getByLabel('From').fill('2000-Jan-01');
  await page.getByLabel('From').press('Enter');
  await page.getByLabel('To').fill('2000-Jan-02');
  await page.getByLabel('To').press('Enter');
  await page.waitForURL(/from=20000101&to=20000102/);
  await page.locator('.notice-empty', { hasText: 'No check-ins match' }).waitFor();
  // "Show on map": the map opens on this device with its popup.
  await page.goto(`${base}/devices/${best!.imei}`);
  await page.getByRole('link', { name: 'Show on map' }).click();
  await page.waitForURL(new RegExp(`/map\\?device=${best!.imei}`));
  await page.locator('.leaflet-popup-content', { hasText: best!.imei }).waitFor();
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
  const critical = new Set(await criticalImeis(page));
  for (const other of others) assert.not.ok(critical.has(other), `critical shows ${other} of another group`);
  // Another group's device page is a not-found with a way back.
  await page.goto(`${base}/devices/${others[0]}`);
  assert.match(await page.locator('.notice-error').innerText(), 'Not found, or not in your groups');
  await screenshot(page, 'portal-group-user');
});

test('masked organisation: no view shows a fault class (fault state, fault type, event type, severity, spec 3.4 columns, filters, sort)', async () => {
  const page = await browserAs('southAdmin');
  await page.goto(`${base}/data-log?limit=200`);
  await page.waitForSelector('table.data-table tbody tr');
  const shown = new Set([...await cellTexts(page, 'ActualOngoingFault'), ...await cellTexts(page, 'Ongoing_fault')]);
  const expected = await api<Page_<Row>>('southAdmin', '/api/device-records/data-log?limit=200');
  assert.equal(await cellTexts(page, 'ActualOngoingFault'), expected.data.map((r) => show(r.ActualOngoingFault)));
  for (const v of shown) assert.ok(['None', 'Fault', '—'].includes(v), `masked view shows ${v}`);
  // Every masked field of every view: the data log's fault type, the fault filter's choices.
  for (const v of await cellTexts(page, 'FaultType')) assert.ok(['None', 'Fault', '—'].includes(v), `masked fault type ${v}`);
  assert.ok((await cellTexts(page, 'FaultType')).includes('Fault'), 'a FaultType above 0 is shown as Fault');
  assert.equal(await page.locator('select[name="fault"] option').allInnerTexts(), ['Any', 'None', 'Fault']);
  // Critical faults: no class in the event column, the severity or the spec 3.4 columns; no class filter.
  await page.goto(`${base}/critical`);
  await page.waitForSelector('table.data-table tbody tr');
  const critical = await api<Page_<Row>>('southAdmin', `/api/device-records/critical-data?${FAULTS_ONLY}`);
  assert.equal(await cellTexts(page, 'EventType'), critical.data.map(() => 'Fault'));
  assert.equal(await cellTexts(page, 'severity'), critical.data.map(() => 'Critical'));
  assert.equal(await cellTexts(page, 'PermanentFaultResetCurrentThreshold'), critical.data.map(() => '—'));
  for (const col of ['ActualOngoingFault', 'now']) for (const v of await cellTexts(page, col)) assert.ok(['None', 'Fault', '—'].includes(v), `critical ${col} ${v}`);
  assert.equal(await page.getByLabel('Event type').locator('option').allInnerTexts(), ['All fault events', 'Model changes']);
  // A device's events and details; the device list offers no state sort and only None / Fault.
  await page.goto(`${base}/devices/861100000000400`);
  await page.waitForSelector('table.data-table tbody tr');
  for (const v of await page.locator('table.data-table').first().locator('td[data-col="EventType"]').allInnerTexts()) assert.is(v, 'Fault');
  const details = await page.getByTestId('device-details').innerText();
  for (const word of ['Temporary', 'Permanent', 'TFault', 'SOTF']) assert.not.match(details, word);
  await page.goto(`${base}/devices`);
  await page.waitForSelector('table.data-table tbody tr');
  assert.is(await page.locator('button.sort[data-sort="ActualOngoingFault"]').count(), 0, 'no state sort for a masked organisation');
  assert.equal(await page.locator('select[name="state"]').locator('option').allInnerTexts(), ['Any', 'None', 'Fault']);
  for (const v of await cellTexts(page, 'ActualOngoingFault')) assert.ok(['None', 'Fault', '—'].includes(v), `devices ${v}`);
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

test('at 1,440 px the critical-faults and data-log tables fit the screen; times to the second; no spec wording', async () => {
  const page = await browserAs('northAdmin', { width: 1440, height: 900 });
  for (const path of ['/critical', '/data-log']) {
    await page.goto(`${base}${path}`);
    await page.waitForSelector('table.data-table tbody tr');
    const [scroll, client] = await page.evaluate(() => [document.querySelector('.table-wrap').scrollWidth, document.querySelector('.table-wrap').clientWidth]) as [number, number];
    assert.ok(scroll <= client, `${path}: table ${scroll} px wide in ${client} px`);
    const col = path === '/critical' ? 'EventTimestamp' : 'date';
    for (const t of (await cellTexts(page, col)).slice(0, 5)) assert.match(t, /^\d{4}-[A-Z][a-z]{2}-\d\d \d\d:\d\d:\d\d [AP]M$/, `${path} ${col}`);
    assert.not.match(await page.evaluate(() => document.body.innerText), /spec \d/, `${path}: no spec wording`);
    await screenshot(page, `portal${path.replace('/', '-')}-1440`);
  }
});

test('a test fault whose clearing never came says so, not "in progress" forty minutes on', async () => {
  const { data } = await api<{ data: Row[] }>('northAdmin', '/api/device-records/map-data');
  const imei = String(data.find((d) => d.ActualOngoingFault === 'None')!.IMEINumber);
  const { rows: [t] } = await db.pool.query<{ id: string }>(
    `insert into test_faults ("OrganizationID", "IMEINumber", started_by, started_at, fault_code, clear_due_at)
     values ('north', $1, 'admin@north.example', now() - interval '42 minutes', 4, now() - interval '40 minutes') returning id`, [imei]);
  await db.pool.query(`insert into test_fault_steps (test_fault_id, phase, step, at) values ($1, 'fault', 'queued', now() - interval '42 minutes'), ($1, 'fault', 'stored', now() - interval '42 minutes')`, [t!.id]);
  const page = await browserAs('northAdmin');
  await page.goto(`${base}/devices/${imei}`);
  const caption = page.getByTestId('test-fault-timeline').locator('caption');
  await caption.waitFor();
  const said = await caption.innerText();
  assert.not.match(said, 'in progress');
  assert.match(said, 'ended without its clearing check-in');
  assert.is(await caption.getAttribute('data-status'), 'clear-overdue');
  assert.ok(await page.getByTestId('start-test-fault').isEnabled(), 'a new test may start');
  await db.pool.query('delete from test_faults where id = $1', [t!.id]);
});

test.run();
