// Debian's chromium driven by playwright-core for the portal suites: installed by infra/chromium.sh when
// missing, started headless by the test with the flags below and a fresh profile directory per launch,
// removed again on close. The portal is served by the real app (createApp) on a loopback port.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

const root = new URL('../../../', import.meta.url).pathname;
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
  close(): Promise<void>;
}

/** A fresh browser (own --user-data-dir) with one page at `viewport`. */
export async function launch({ width = 1366, height = 768 } = {}): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'faultline-chromium-'));
  // launchPersistentContext passes `--user-data-dir=<profile>`; playwright's own launch() refuses that flag.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width, height }, timeout: 60_000,
  });
  const page = context.pages()[0] ?? await context.newPage();
  page.setDefaultTimeout(20_000);
  return {
    context, page,
    async close() {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
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
  await page.waitForURL(`${base}/map`);
}
