// GET /healthz: the process is up. GET /readyz: every dependency answers (docs/decisions.md#names-and-places).
// GET /metrics is in api/ops-routes.ts (it may move to METRICS_PORT).
import { Hono } from 'hono';

/**
 * A named dependency check; true when reachable. A check may also say what it saw (`detail`, shown under
 * `details` in the answer), e.g. the Kafka partitions that are under-replicated while it is still up.
 */
export type ReadinessCheck = () => Promise<boolean | { up: boolean; detail: unknown }>;

/**
 * A check that has not answered within this long counts as down. A dependency that hangs (a frozen
 * registry, a broker whose client is still retrying) must turn /readyz to 503, not hang the probe.
 */
export const READINESS_TIMEOUT_MS = 2500;

type Answer = Awaited<ReturnType<ReadinessCheck>>;

function withinTimeout(check: ReadinessCheck, timeoutMs: number): Promise<Answer> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Answer>((resolve) => { timer = setTimeout(() => resolve(false), timeoutMs); });
  return Promise.race([check().catch(() => false), timeout]).finally(() => clearTimeout(timer));
}

export interface HealthOptions {
  timeoutMs?: number;
  /** True once the process is shutting down: /readyz answers 503 `draining`, so balancers send no new work. */
  draining?: () => boolean;
}

export function healthRoutes(checks: Record<string, ReadinessCheck>, { timeoutMs = READINESS_TIMEOUT_MS, draining = () => false }: HealthOptions = {}): Hono {
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    if (draining()) return c.json({ status: 'draining', checks: {} }, 503);
    const entries = await Promise.all(Object.entries(checks).map(async ([name, check]) => [name, await withinTimeout(check, timeoutMs)] as const));
    const up = (a: Answer) => (typeof a === 'boolean' ? a : a.up);
    const ready = entries.every(([, a]) => up(a));
    const details = Object.fromEntries(entries.filter(([, a]) => typeof a !== 'boolean').map(([n, a]) => [n, (a as { detail: unknown }).detail]));
    return c.json({
      status: ready ? 'ready' : 'unavailable',
      checks: Object.fromEntries(entries.map(([n, a]) => [n, up(a) ? 'up' : 'down'])),
      ...(Object.keys(details).length ? { details } : {}),
    }, ready ? 200 : 503);
  });
  return app;
}
