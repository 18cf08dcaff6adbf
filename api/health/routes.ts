// GET /healthz: the process is up. GET /readyz: every dependency answers (docs/decisions.md#names-and-places).
// GET /metrics: Prometheus text format.
import { Hono } from 'hono';
import { registry } from '../../config/metrics.js';

/** A named dependency check; true when reachable. */
export type ReadinessCheck = () => Promise<boolean>;

/**
 * A check that has not answered within this long counts as down. A dependency that hangs (a frozen
 * registry, a broker whose client is still retrying) must turn /readyz to 503, not hang the probe.
 */
export const READINESS_TIMEOUT_MS = 2500;

function withinTimeout(check: ReadinessCheck, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), timeoutMs); });
  return Promise.race([check().catch(() => false), timeout]).finally(() => clearTimeout(timer));
}

export function healthRoutes(checks: Record<string, ReadinessCheck>, { timeoutMs = READINESS_TIMEOUT_MS } = {}): Hono {
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    const entries = await Promise.all(Object.entries(checks).map(async ([name, check]) => [name, await withinTimeout(check, timeoutMs)] as const));
    const ready = entries.every(([, ok]) => ok);
    return c.json({ status: ready ? 'ready' : 'unavailable', checks: Object.fromEntries(entries.map(([n, ok]) => [n, ok ? 'up' : 'down'])) }, ready ? 200 : 503);
  });
  app.get('/metrics', async (c) => c.body(await registry.metrics(), 200, { 'content-type': registry.contentType }));
  return app;
}
