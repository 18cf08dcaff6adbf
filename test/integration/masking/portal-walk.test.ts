// Masking in the portal (issue 28; docs/decisions.md#masking): a real browser (Debian's chromium via
// playwright-core) signed in as the masked organisation's admin and as its group user walks every view it can
// reach, following every link from the map (the navigation, every device, incident and page link, up to a few
// per kind of page), and reads what a person sees: the text, every title and aria-label (the tooltips of map
// clusters and buttons), the choices of every filter, and on the map the tooltip of every incident's faulted
// section (hovered) and a device's popup. It fails if any of it names a fault class. The same walk with the
// mask off must show class words first, so it cannot pass by seeing nothing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { JWT_SECRET } from '../api/seeded-api.js';
import { hoverMapUntil, mapPixel, screenshot } from '../../../support/browser.js';
import { checkPageErrorsAfterEach, servePortal, type PortalSite } from '../../../support/portal-site.js';
import { classWordsIn, MASKED_USERS, seedEveryClass, setMasked } from './every-class.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
declare const document: any;
declare const localStorage: any;
/* eslint-enable @typescript-eslint/no-explicit-any */

/** Pages visited per kind of page (digits in the path and query values collapsed): every view, several of each. */
const PER_KIND = 4;
let db: TestDatabase;
let site: PortalSite;
let base: string;

test.before(async () => {
  db = await createTestDatabase('mask_portal');
  await seedEveryClass(db);
  site = await servePortal({ pool: db.pool, jwtSecret: JWT_SECRET, accountCacheMs: 0 });
  base = site.base;
});
checkPageErrorsAfterEach(test);
test.after(async () => {
  try { await site?.close(); } finally { await db?.drop(); }
});

/** Waits until the view has its data: no "Loading…" left and the network quiet. */
async function settled(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
  await page.waitForFunction(() => !document.body.innerText.includes('Loading'), undefined, { timeout: 30_000 });
}

/** What a person reads on the page now: text, titles, labels, placeholders, every option of every filter. */
function readPage(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [document.body.innerText];
    for (const el of document.querySelectorAll('[title], [aria-label], [placeholder], [alt]')) {
      for (const a of ['title', 'aria-label', 'placeholder', 'alt']) { const v = el.getAttribute(a); if (v) out.push(v); }
    }
    for (const o of document.querySelectorAll('option')) out.push(o.textContent ?? '');
    for (const t of document.querySelectorAll('.leaflet-tooltip, .leaflet-popup-content')) out.push(t.textContent ?? '');
    return out;
  }) as Promise<string[]>;
}

const kindOf = (url: string) => url.replace(/\d+/g, '#');

/** Every page reachable by links from the map, up to PER_KIND of each kind; what each shows. */
async function crawl(page: Page, errors: string[]): Promise<Map<string, string[]>> {
  const seen = new Map<string, string[]>();
  const perKind = new Map<string, number>();
  const queue = ['/map'];
  while (queue.length) {
    const url = queue.shift()!;
    if (seen.has(url)) continue;
    const kind = kindOf(url);
    if ((perKind.get(kind) ?? 0) >= PER_KIND) continue;
    perKind.set(kind, (perKind.get(kind) ?? 0) + 1);
    await page.goto(`${base}${url}`);
    await settled(page);
    seen.set(url, await readPage(page));
    // A view the server refused (a masked query guard too strict, say) would hide nothing by showing nothing.
    for (const e of (await page.locator('.notice-error').allInnerTexts())) errors.push(`${url}: ${e}`);
    const links = (await page.evaluate(() => [...document.querySelectorAll('a[href]')].map((a: { getAttribute(n: string): string }) => a.getAttribute('href')))) as string[];
    for (const href of links) {
      if (!href.startsWith('/') || href.startsWith('//') || href.startsWith('/api/') || href.startsWith('/device-records/')) continue;
      if (!seen.has(href)) queue.push(href);
    }
  }
  return seen;
}


interface IncidentSections { id: number; sections: { from: { imei: string }; to: { imei: string }[]; spans: { imei: string }[] }[] }

/** The tooltip of every active incident's faulted section, hovered on the map it zooms to, and a device popup. */
async function mapTooltips(page: Page, token: string): Promise<string[]> {
  const get = async <T>(path: string) => (await (await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } })).json()) as T;
  const devices = new Map((await get<{ data: { IMEINumber: string; Lat: number | null; Long: number | null; Real_Name: string | null }[] }>('/api/device-records/map-data')).data.map((d) => [d.IMEINumber, d]));
  const incidents = (await get<{ data: IncidentSections[] }>('/api/incidents?status=active')).data.filter((i) => i.sections.length > 0);
  const out: string[] = [];
  for (const i of incidents) {
    await page.goto(`${base}/map?incident=${i.id}`);
    // Along the section's first stretch (or on the ring drawn round a section that runs to the line's end),
    // at a different place on each try.
    const s = i.sections[0]!;
    const from = devices.get(s.from.imei);
    const end = devices.get((s.to[0] ?? s.spans[0])?.imei ?? '');
    if (!from?.Lat || !from.Long) continue;
    await page.waitForSelector(`[data-testid="map"][data-incident-sections][data-zoomed-incident="${i.id}"]`);
    const tries = end?.Lat && end.Long ? [0.5, 0.3, 0.7].map((f) => [from.Lat! + (end.Lat! - from.Lat!) * f, from.Long! + (end.Long! - from.Long!) * f, 0, 0] as const)
      : [[16, 0], [0, 16], [-16, 0]].map(([dx, dy]) => [from.Lat!, from.Long!, dx!, dy!] as const);
    let n = 0;
    const tip = page.locator('.leaflet-tooltip').filter({ hasText: `Incident ${i.id}` });
    await hoverMapUntil(page, `the tooltip of incident ${i.id}'s faulted section on a hover`, async () => {
      const [lat, lng, dx, dy] = tries[n++ % tries.length]!;
      const p = await mapPixel(page, lat, lng);
      return { x: p.x + dx, y: p.y + dy };
    }, tip);
    out.push(await tip.innerText());
  }
  // A device's popup: the map's search focuses it.
  const faulted = [...devices.values()].find((d) => d.Real_Name?.startsWith('F9 ') && d.Lat !== null);
  if (faulted) {
    await page.goto(`${base}/map?device=${faulted.IMEINumber}`);
    await settled(page);
    out.push(...(await readPage(page)));
  }
  return out;
}

async function walkAs(user: { email: string; password: string }): Promise<{ pages: Map<string, string[]>; tips: string[]; errors: string[] }> {
  const page = await site.browserAs(user);
  // The portal's own session (portal/src/api/session.ts): the token the map reads the API with.
  const token = (await page.evaluate(() => JSON.parse(localStorage.getItem('faultline.session')).token)) as string;
  const errors: string[] = [];
  const pages = await crawl(page, errors);
  const tips = await mapTooltips(page, token);
  return { pages, tips, errors };
}

test('unmasked, the same walk shows class words: views, filters and map tooltips have something to hide', async () => {
  await setMasked(db, false);
  const { pages, tips } = await walkAs(MASKED_USERS.admin);
  const words = new Set([...pages.values()].flat().flatMap(classWordsIn).map((w) => w.toLowerCase()));
  for (const w of ['permanent', 'momentary', 'pfault', 'temporary']) assert.ok(words.has(w), `the unmasked portal shows "${w}" (seen: ${[...words].join(', ')})`);
  assert.ok(tips.some((t) => classWordsIn(t).length > 0), `an incident tooltip names its class unmasked: ${tips.join(' | ')}`);
  console.log(`unmasked portal walk: ${pages.size} pages, ${tips.length} map tooltips and popups`);
});

for (const who of ['admin', 'groupUser'] as const) {
  test(`masked ${who}: no view, tooltip, title or filter choice names a fault class`, async () => {
    await setMasked(db, true);
    const { pages, tips, errors } = await walkAs(MASKED_USERS[who]);
    assert.equal(errors, [], 'every view answered');
    const kinds = new Set([...pages.keys()].map((u) => u.split('?')[0]!.replace(/\/[^/]+$/, (m) => (/\d/.test(m) ? '/:id' : m))));
    for (const view of ['/board', '/map', '/incidents', '/alarms', '/critical', '/data-log', '/devices', '/devices/:id', '/incidents/:id']) assert.ok(kinds.has(view), `${who} reached ${view} (${[...kinds].join(', ')})`);
    const leaks = [...pages].flatMap(([url, texts]) => [...new Set(texts.flatMap(classWordsIn))].map((w) => `${url}: ${w}`));
    leaks.push(...tips.flatMap((t) => classWordsIn(t).map((w) => `map tooltip "${t.slice(0, 120)}": ${w}`)));
    assert.equal(leaks.slice(0, 30), [], `${leaks.length} leaks`);
    if (who === 'admin') assert.ok(tips.length > 0, 'map tooltips were read');
    console.log(`masked ${who} portal walk: ${pages.size} pages, ${tips.length} map tooltips and popups`);
    await screenshot(site.browsers.at(-1)!.page, `masked-${who}-last-view`);
  });
}

test.run();
