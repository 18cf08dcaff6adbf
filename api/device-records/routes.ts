// Mounts the read endpoints: GET only, bearer token required, query validated into a typed ListQuery
// before the handler runs (Hono's validator), the body answered as JSON.
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import { validator } from 'hono/validator';
import type { AuthEnv } from '../auth/caller.js';
import type { ReadDeps } from './endpoint.js';
import { READ_ENDPOINTS } from './endpoints.js';
import { parseListQuery } from './list-params.js';

export function deviceRecordRoutes({ deps, auth }: { deps: ReadDeps; auth: MiddlewareHandler<AuthEnv> }): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  for (const endpoint of READ_ENDPOINTS) {
    app.get(
      endpoint.path,
      auth,
      validator('query', (value) => parseListQuery(value, endpoint.params)),
      async (c) => c.json(await endpoint.run(deps, c.get('caller'), c.req.valid('query'), c.req.param('imei'))),
    );
  }
  return app;
}
