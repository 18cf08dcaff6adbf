// The board's API (issue 32 point 1, docs/decisions.md#the-board): GET /api/board, polled with ETags. Its
// actions (acknowledging a feeder, shelving) are the alarm actions' router (api/alarms/actions.ts). The route
// takes the one `auth` of app.ts, so reach and the fault mask apply as everywhere else.
import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import type pg from 'pg';
import { DEFAULT_CHATTER_SHELVE_MAX_MINUTES } from '../../domain/alarm-states.js';
import { classOf } from '../alarms/actions.js';
import type { AuthEnv } from '../auth/caller.js';
import { matchesEtag } from '../request.js';
import { acceptOnly } from '../errors.js';
import { getRoute } from '../read-route.js';
import { GET_BOARD } from './endpoints.js';
import { readBoard } from './read.js';

/** `chatterShelveMaxMinutes`: Settings.alarms.chatterShelveMaxMinutes (ALARM_CHATTER_SHELVE_MAX_MINUTES). */
export function boardRoutes({ pool, auth, now, chatterShelveMaxMinutes = DEFAULT_CHATTER_SHELVE_MAX_MINUTES }: {
  pool: pg.Pool; auth: MiddlewareHandler<AuthEnv>; now: () => number; chatterShelveMaxMinutes?: number;
}): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();

  // Polled every few seconds by every open board: an unchanged board is a 304 of a few bytes.
  getRoute(app, GET_BOARD, [auth], async (c) => {
    acceptOnly(c.req.queries(), ['class']);
    const body = JSON.stringify(await readBoard(pool, c.get('caller'), now(), classOf(c.req.query('class'), 'class'), chatterShelveMaxMinutes));
    const etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
    c.header('etag', etag);
    c.header('cache-control', 'no-cache');
    if (matchesEtag(c.req.header('if-none-match'), etag)) return c.body(null, 304);
    return c.body(body, 200, { 'content-type': 'application/json; charset=utf-8' });
  });

  return app;
}
