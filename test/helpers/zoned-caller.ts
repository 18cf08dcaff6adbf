// The demo organisations' callers (support/reference-data.ts) signed in with a time zone of the test's choosing: a
// day range is the caller's days, so the range suites ask the same request from zones far from UTC.
import type { Hono } from 'hono';
import type pg from 'pg';
import { createApp } from '../../api/app.js';

export const DEMO_LOGINS = {
  admin: { email: 'admin@north.example', password: 'north-Admin-Pass-1' },
  'group user': { email: 'east@north.example', password: 'north-East-Pass-1' },
  'south admin': { email: 'admin@south.example', password: 'south-Admin-Pass-1' },
} as const;
export type DemoCaller = keyof typeof DEMO_LOGINS;

/**
 * `who` with the time zone `tz` (set on `db`), signed in to an app reading `appPool` (default `db`) at `now`:
 * a GET answering its status and JSON body.
 */
export async function zonedCaller<B>(db: pg.Pool, who: DemoCaller, tz: string, { now, appPool = db }: { now: () => number; appPool?: pg.Pool }): Promise<(path: string) => Promise<{ status: number; body: B }>> {
  await db.query('update users set timezone = $1 where email = $2', [tz, DEMO_LOGINS[who].email]);
  const app: Hono = createApp({ readiness: {}, pool: appPool, now, readCacheMs: 0, jwtSecret: new TextEncoder().encode('zoned-caller-secret-zoned-caller-secret!!') });
  const login = await app.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(DEMO_LOGINS[who]) });
  const token = ((await login.json()) as { accessToken: string }).accessToken;
  return async (path) => {
    const res = await app.request(path, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: (await res.json()) as B };
  };
}
