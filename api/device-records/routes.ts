// Mounts the read endpoints: GET only, bearer token required, query validated into a typed ListQuery
// before the handler runs (Hono's validator), the body answered as JSON. The fault mask is `auth`'s
// (api/fault-mask-policy.ts), as for every reader. Fleet-wide answers (map-data) come from the one-second
// cache as serialized JSON with an ETag (fleet-answer.ts). A reader that sends `X-Time-Precision: seconds`
// (the portal) gets its times as `YYYY-MMM-DD hh:mm:ss A`; without it, spec 4.2's `hh:mm A`.
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import { validator } from 'hono/validator';
import type { AuthEnv } from '../auth/caller.js';
import { routeMasksItself } from '../fault-mask-policy.js';
import type { ReadDeps, ReadEndpoint } from './endpoint.js';
import { FleetAnswer } from './fleet-answer.js';
import { acceptsGzip, csvAttachment, matchesEtag } from '../request.js';
import { READ_ENDPOINTS } from './endpoints.js';
import { parseListQuery } from './list-params.js';
import { JsonText } from './row-json.js';

/** The request header that asks for seconds in displayed times (value `seconds`). */
export const TIME_PRECISION_HEADER = 'x-time-precision';

/** Mounts `endpoints` (default the spec's, under each of READ_PREFIXES; api/fleet/ mounts its own at `/`). */
export function deviceRecordRoutes({ deps, auth, endpoints = READ_ENDPOINTS }: { deps: ReadDeps; auth: MiddlewareHandler<AuthEnv>; endpoints?: readonly ReadEndpoint[] }): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  for (const endpoint of endpoints) {
    app.get(
      endpoint.path,
      auth,
      validator('query', (value) => parseListQuery(value, endpoint.params)),
      async (c) => {
        const caller = { ...c.get('caller'), displaySeconds: c.req.header(TIME_PRECISION_HEADER) === 'seconds' };
        const query = c.req.valid('query');
        const answer = () => endpoint.run(deps, caller, query, c.req.param('imei'));
        if (endpoint.shape === 'csv') {
          const stream = (await answer()) as ReadableStream<Uint8Array>;
          routeMasksItself(c);
          return c.body(stream, 200, { ...csvAttachment(endpoint.fileName ?? 'export.csv'), 'cache-control': 'no-store' });
        }
        if (!endpoint.fleetWide) {
          const body = await answer();
          // A page written as JSON text from its rows (row-json.ts) goes out as it is.
          return body instanceof JsonText ? c.body(body.text, 200, { 'content-type': 'application/json' }) : c.json(body);
        }
        // The key holds everything the answer depends on, so nobody gets an answer made for someone else.
        const key = JSON.stringify([endpoint.path, caller.userId, caller.org, caller.role, caller.timeZone, caller.displaySeconds, caller.maskFaultDetails, query]);
        const built = async () => {
          const body = await answer();
          return body instanceof JsonText ? { answer: new FleetAnswer(body.text), validUntilMs: body.validUntilMs ?? -Infinity } : { answer: new FleetAnswer(JSON.stringify(body)), validUntilMs: -Infinity };
        };
        const fleet = await deps.shortCache(key, async () => endpoint.keptWhileUnchanged ? deps.unchanged.answer(key, built) : (await built()).answer);
        // private: per caller; no-cache: a client may keep it but asks again (and gets 304 while unchanged).
        const headers = { etag: fleet.etag, vary: 'Accept-Encoding', 'cache-control': 'private, no-cache' };
        if (matchesEtag(c.req.header('if-none-match'), fleet.etag)) return c.body(null, 304, headers);
        const json = { ...headers, 'content-type': 'application/json' };
        if (acceptsGzip(c.req.header('accept-encoding'))) return c.body(await fleet.gzip(), 200, { ...json, 'content-encoding': 'gzip' });
        return c.body(fleet.json, 200, json);
      },
    );
  }
  return app;
}
