// Debian's chromium driven by playwright-core for the browser suites (portal, masking, security): installed
// by infra/chromium.sh when missing, started headless with the flags below and a fresh profile directory per
// launch, removed again on close. Every page of every browser records its uncaught errors and its console
// errors; assertNoPageErrors fails the test that caused a page error, and close() fails when one was never
// checked, so no browser test passes over a page error. support/portal-site.ts serves the portal to them.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { waitFor } from './wait-for.js';

const root = new URL('../', import.meta.url).pathname;
export const CHROMIUM = '/usr/bin/chromium';
export const ARTIFACTS = join(root, 'test/artifacts');

export const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/** Runs infra/chromium.sh (a no-op when /usr/bin/chromium exists). */
export function ensureChromium(): void {
  const r = spawnSync('bash', [join(root, 'infra/chromium.sh')], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`infra/chromium.sh failed (exit ${r.status}); the portal suites need ${CHROMIUM}`);
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Uncaught errors of this browser's pages since the last assertNoPageErrors. */
  pageErrors: string[];
  /** Every console message of level error of this browser's pages (a refused CSP, a failed request), for tests to read. */
  consoleErrors: string[];
  close(): Promise<void>;
}

const open = new Set<Browser>();

/** Throws when any open browser's page threw an uncaught error since the last call (run after each test). */
export function assertNoPageErrors(): void {
  const errors = [...open].flatMap((b) => b.pageErrors.splice(0));
  if (errors.length) throw new Error(`uncaught page error${errors.length > 1 ? 's' : ''}:\n${errors.join('\n')}`);
}

/** A fresh browser (own --user-data-dir) with one page at `viewport`. */
export async function launch({ width = 1366, height = 768 } = {}): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'faultline-chromium-'));
  // launchPersistentContext passes `--user-data-dir=<profile>`; playwright's own launch() refuses that flag.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width, height }, timeout: 60_000,
  });
  const pageErrors: string[] = [];
  const consoleErrors: string[] = [];
  const watch = (p: Page) => {
    p.on('pageerror', (e) => pageErrors.push(`${p.url()}: ${e.stack ?? e.message}`));
    p.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  };
  context.pages().forEach(watch);
  context.on('page', watch);
  const page = context.pages()[0] ?? await context.newPage();
  page.setDefaultTimeout(20_000);
  const browser: Browser = {
    context, page, pageErrors, consoleErrors,
    async close() {
      open.delete(browser);
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
      if (pageErrors.length) throw new Error(`uncaught page error:\n${pageErrors.join('\n')}`);
    },
  };
  open.add(browser);
  return browser;
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

export async function signIn(page: Page, base: string, user: { email: string; password: string }): Promise<void> {
  await page.goto(`${base}/`);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}/board`);
}

/** The pixel of `lat,lng` in the page, from the view the map reports (`data-view`: Web Mercator, 256 px tiles). */
export async function mapPixel(page: Page, lat: number, lng: number): Promise<{ x: number; y: number }> {
  const view = (await page.getByTestId('map').getAttribute('data-view'))!.split(',').map(Number) as [number, number, number];
  const box = (await page.getByTestId('map').boundingBox())!;
  const scale = 256 * 2 ** view[2];
  const px = (la: number, lo: number) => [(lo + 180) / 360 * scale, (1 - Math.log(Math.tan(Math.PI / 4 + la * Math.PI / 360)) / Math.PI) / 2 * scale] as const;
  const [cx, cy] = px(view[0], view[1]);
  const [x, y] = px(lat, lng);
  return { x: box.x + box.width / 2 + x - cx, y: box.y + box.height / 2 + y - cy };
}

/**
 * Points at the map until `tooltip` shows, and fails naming `what` after `timeoutMs`. Each try reads the pixel
 * again (`where`, usually mapPixel): on a loaded machine the map may still be zooming or laying out (a notice
 * appearing above it moves it down). The pointer comes from aside each time, since Leaflet's canvas checks
 * what is under it on moves, throttled, and a busy page can miss one.
 */
export async function hoverMapUntil(page: Page, what: string, where: () => Promise<{ x: number; y: number }>, tooltip: Locator, timeoutMs = 30_000): Promise<void> {
  await waitFor(what, async () => {
    const p = await where();
    await page.mouse.move(p.x - 30, p.y - 30);
    await page.mouse.move(p.x, p.y, { steps: 5 });
    return tooltip.first().waitFor({ timeout: 1_500 }).then(() => true, () => false);
  }, { timeoutMs, intervalMs: 100 });
}
