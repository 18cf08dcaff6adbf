// GET /metrics (Prometheus text) and GET /openapi.json: what operators and tooling read, not callers. Both are
// unauthenticated; /metrics tells anyone who can reach it the process's throughput, queue lag, error and dead
// letter counts, delivery outcomes and Node's memory and event-loop figures, and /openapi.json every route and
// parameter. On the public port by default; METRICS_PORT moves them onto a port of their own (createOpsApp) to
// keep behind a firewall (docs/decisions.md#hostile-callers, README "Configuration").
import { Hono } from 'hono';
import { registry } from '../config/metrics.js';
import { notFound, renderError } from './errors.js';
import { json } from './openapi-kit.js';
import { getRoute, readRoute, type ReadRoute } from './read-route.js';

/** No credential (read-route.ts registers and describes them from these entries). */
export const GET_METRICS = readRoute({
  path: '/metrics', operationId: 'metrics', tag: 'health', summary: 'Prometheus metrics', security: null,
  responses: { 200: { description: 'Prometheus text format', content: { 'text/plain': { schema: { type: 'string' } } } } },
});
export const GET_DOCUMENT = readRoute({ path: '/openapi.json', operationId: 'openapi', tag: 'health', summary: 'This document', security: null, responses: { 200: { description: 'OpenAPI 3.1', ...json({ type: 'object' }) } } });
export const OPS_READS: readonly ReadRoute[] = [GET_METRICS, GET_DOCUMENT];

export function opsRoutes(document: object): Hono {
  const app = new Hono();
  getRoute(app, GET_METRICS, [], async (c) => c.body(await registry.metrics(), 200, { 'content-type': registry.contentType }));
  getRoute(app, GET_DOCUMENT, [], (c) => c.json(document));
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
