// GET /healthz: the process is up. GET /readyz: every dependency answers (SPEC-DECISIONS "Names and places").
// GET /metrics: Prometheus text format.
import { Hono } from 'hono';
import { registry } from '../../config/metrics.js';

/** A named dependency check; true when reachable. */
export type ReadinessCheck = () => Promise<boolean>;

export function healthRoutes(checks: Record<string, ReadinessCheck>): Hono {
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    const entries = await Promise.all(Object.entries(checks).map(async ([name, check]) => [name, await check().catch(() => false)] as const));
    const ready = entries.every(([, ok]) => ok);
    return c.json({ status: ready ? 'ready' : 'unavailable', checks: Object.fromEntries(entries.map(([n, ok]) => [n, ok ? 'up' : 'down'])) }, ready ? 200 : 503);
  });
  app.get('/metrics', async (c) => c.body(await registry.metrics(), 200, { 'content-type': registry.contentType }));
  return app;
}
