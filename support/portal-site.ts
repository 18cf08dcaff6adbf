// The portal served to chromium for a browser suite: the real app (createApp) on a loopback port over the
// suite's database, the portal built once, and browsers signed in as a given user. One place for the set-up
// every browser suite shared (build, serve, sign in, page-error checks, closing), so a new suite gets the
// same checks: `checkPageErrorsAfterEach(test)` fails the test that caused an uncaught page error.
import type { Page } from 'playwright-core';
import type pg from 'pg';
import { createApp, type AppOptions } from '../api/app.js';
import { listen } from '../api/server.js';
import { ensurePortalBuilt } from '../portal/build.js';
import { assertNoPageErrors, ensureChromium, launch, signIn, type Browser } from './browser.js';

export const PORTAL_DIST = new URL('../portal/dist/', import.meta.url).pathname;

export interface Credentials { email: string; password: string }
export type Viewport = { width: number; height: number };

export interface PortalBrowsers {
  /** A fresh browser at `viewport`, signed in as `user` (at the sign-in page when null); closed by close(). */
  browserAs(user: Credentials | null, viewport?: Viewport): Promise<Page>;
  /** A fresh browser at `viewport`, not signed in (for a test that sets it up first: routes, a clock); closed by close(). */
  open(viewport?: Viewport): Promise<Browser>;
  /** Signs `page` in as `user` (lands on the board, the operators' landing view). */
  signIn(page: Page, user: Credentials): Promise<void>;
  /** The browsers opened so far, newest last. */
  readonly browsers: Browser[];
  /** Closes every browser (failing on a page error never checked). */
  close(): Promise<void>;
}

/** Browsers against a portal already served at `base` (a `faultline start` process, say). */
export async function portalBrowsers(base: string): Promise<PortalBrowsers> {
  ensureChromium();
  await ensurePortalBuilt();
  const browsers: Browser[] = [];
  return {
    browsers,
    async open(viewport) {
      const b = await launch(viewport);
      browsers.push(b);
      return b;
    },
    signIn: (page, user) => signIn(page, base, user),
    async browserAs(user, viewport) {
      const b = await launch(viewport);
      browsers.push(b);
      if (user) await signIn(b.page, base, user);
      else await b.page.goto(`${base}/`);
      return b.page;
    },
    async close() {
      const errors: unknown[] = [];
      for (const b of browsers.splice(0)) await b.close().catch((err: unknown) => errors.push(err));
      if (errors.length) throw errors[0];
    },
  };
}

export interface PortalSite extends PortalBrowsers {
  base: string;
  /** The app's own requests (app.request), without a socket. */
  app: ReturnType<typeof createApp>;
}

/** The real app over `pool` on a loopback port, with the portal; close() closes browsers, then the server. */
export async function servePortal(options: Omit<AppOptions, 'readiness' | 'portalDir'> & { pool: pg.Pool }): Promise<PortalSite> {
  await ensurePortalBuilt();
  const app = createApp({ readiness: {}, portalDir: PORTAL_DIST, ...options });
  const server = await listen(app, { port: 0, hostname: '127.0.0.1' });
  const base = `http://127.0.0.1:${server.port}`;
  const browsers = await portalBrowsers(base);
  return {
    ...browsers, base, app,
    async close() {
      try { await browsers.close(); } finally { await server.close(); }
    },
  };
}

/** After every test of the suite: no uncaught page error in any open browser. */
export function checkPageErrorsAfterEach(test: { after: { each(fn: () => void): void } }): void {
  test.after.each(() => assertNoPageErrors());
}
