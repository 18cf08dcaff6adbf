// GET /metrics (Prometheus text) and GET /openapi.json: what operators and tooling read, not callers. Both are
// unauthenticated; /metrics tells anyone who can reach it the process's throughput, queue lag, error and dead
// letter counts, delivery outcomes and Node's memory and event-loop figures, and /openapi.json every route and
// parameter. On the public port by default; METRICS_PORT moves them onto a port of their own (createOpsApp) to
// keep behind a firewall (docs/decisions.md#hostile-callers, README "Configuration").
import { Hono } from 'hono';
import { registry } from '../config/metrics.js';
import { notFound, renderError } from './errors.js';

export function opsRoutes(document: object): Hono {
  const app = new Hono();
  app.get('/metrics', async (c) => c.body(await registry.metrics(), 200, { 'content-type': registry.contentType }));
  app.get('/openapi.json', (c) => c.json(document));
  return app;
}

/** The app of METRICS_PORT: the ops routes and nothing else. */
export function createOpsApp(document: object): Hono {
  const app = new Hono();
  app.route('/', opsRoutes(document));
  app.notFound(notFound);
  app.onError(renderError);
  return app;
}
