// GET /healthz: the process is up. GET /readyz: every dependency answers (docs/decisions.md#names-and-places),
// as decided in docs/decisions.md#readiness-under-load: a dependency that has answered once is reported down only
// after FAILURES_TO_DOWN consecutive failed checks, so one check starved of CPU on a loaded host does not pull the
// process (and, since every process shares the dependency, every process at once) out of the balancer.
// GET /metrics is in api/ops-routes.ts (it may move to METRICS_PORT); the same rounds of checks feed the gauge
// faultline_ready there, so an alert sees what a balancer sees (docs/monitoring.md#readiness).
import { Hono } from 'hono';
import { Gauge } from 'prom-client';
import { registry } from '../../config/metrics.js';
import { json, ref } from '../openapi-kit.js';
import { getRoute, readRoute, type ReadRoute } from '../read-route.js';

/**
 * A named dependency check; true when reachable. A check may also say what it saw (`detail`, shown under
 * `details` in the answer), e.g. the Kafka partitions that are under-replicated while it is still up.
 */
/** Liveness and readiness: no credential (read-route.ts registers and describes them from these entries). */
export const GET_HEALTHZ = readRoute({ path: '/healthz', operationId: 'healthz', tag: 'health', summary: 'The process is up', security: null, responses: { 200: { description: 'Up', ...json(ref('Health')) } } });
export const GET_READYZ = readRoute({
  path: '/readyz', operationId: 'readyz', tag: 'health', summary: 'Every dependency answers', security: null,
  responses: { 200: { description: 'Ready', ...json(ref('Readiness')) }, 503: { description: 'A dependency is down', ...json(ref('Readiness')) } },
});
export const HEALTH_READS: readonly ReadRoute[] = [GET_HEALTHZ, GET_READYZ];

export type ReadinessCheck = () => Promise<boolean | { up: boolean; detail: unknown }>;

/**
 * A check that has not answered within this long counts as down. A dependency that hangs (a frozen
 * registry, a broker whose client is still retrying) must turn /readyz to 503, not hang the probe.
 */
export const READINESS_TIMEOUT_MS = 2500;

/** Consecutive failed checks after which a dependency that had answered is reported down. */
export const FAILURES_TO_DOWN = 3;

type Answer = Awaited<ReturnType<ReadinessCheck>>;

/** What /readyz remembers of one dependency between checks. */
export interface CheckMemory { everUp: boolean; failures: number }

/**
 * Pure: the state reported for a dependency after one more check. Until it has answered once (a process
 * starting) it is down at once; after that only `failuresToDown` failures in a row make it down, and one
 * answer makes it up again.
 */
export function afterCheck(memory: CheckMemory, answeredUp: boolean, failuresToDown: number): { memory: CheckMemory; up: boolean } {
  if (answeredUp) return { memory: { everUp: true, failures: 0 }, up: true };
  const failures = memory.failures + 1;
  return { memory: { everUp: memory.everUp, failures }, up: memory.everUp && failures < failuresToDown };
}

function withinTimeout(check: ReadinessCheck, timeoutMs: number): Promise<Answer> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Answer>((resolve) => { timer = setTimeout(() => resolve(false), timeoutMs); });
  return Promise.race([check().catch(() => false), timeout]).finally(() => clearTimeout(timer));
}

export interface HealthOptions {
  timeoutMs?: number;
  failuresToDown?: number;
  /** True once the process is shutting down: /readyz answers 503 `draining`, so balancers send no new work. */
  draining?: () => boolean;
}

/** What one round of checks reported: each dependency up or down, and what the checks saw. */
interface Round { reported: [string, boolean][]; details: Record<string, unknown> }

/** The round of the process's /readyz (the app created last, in a process with several, as in tests). */
let scrapeRound: { round: () => Promise<Round>; draining: () => boolean } | null = null;

// faultline_ready{dependency}: 1 up, 0 down, by the same rounds and the same memory as /readyz;
// dependency="all" is what /readyz answers (0 while draining).
new Gauge({
  name: 'faultline_ready',
  help: 'Readiness as /readyz reports it: 1 ready, 0 not; per dependency, and dependency="all" for the process',
  labelNames: ['dependency'],
  registers: [registry],
  async collect() {
    if (!scrapeRound) return;
    this.reset();
    if (scrapeRound.draining()) { this.set({ dependency: 'all' }, 0); return; }
    const { reported } = await scrapeRound.round();
    for (const [name, up] of reported) this.set({ dependency: name }, up ? 1 : 0);
    this.set({ dependency: 'all' }, reported.every(([, up]) => up) ? 1 : 0);
  },
});

export function healthRoutes(checks: Record<string, ReadinessCheck>, { timeoutMs = READINESS_TIMEOUT_MS, failuresToDown = FAILURES_TO_DOWN, draining = () => false }: HealthOptions = {}): Hono {
  const app = new Hono();
  const memory = new Map<string, CheckMemory>(Object.keys(checks).map((n) => [n, { everUp: false, failures: 0 }]));
  // One round of checks at a time: probes that arrive while one runs share its answers, so "consecutive
  // failed checks" counts rounds, not however many balancers happen to ask at once.
  let round: Promise<Round> | null = null;
  const checkAll = async (): Promise<Round> => {
    const entries = await Promise.all(Object.entries(checks).map(async ([name, check]) => [name, await withinTimeout(check, timeoutMs)] as const));
    const reported = entries.map(([name, a]): [string, boolean] => {
      const next = afterCheck(memory.get(name)!, typeof a === 'boolean' ? a : a.up, failuresToDown);
      memory.set(name, next.memory);
      return [name, next.up];
    });
    return { reported, details: Object.fromEntries(entries.filter(([, a]) => typeof a !== 'boolean').map(([n, a]) => [n, (a as { detail: unknown }).detail])) };
  };
  const shared = () => (round ??= checkAll().finally(() => { round = null; }));
  scrapeRound = { round: shared, draining };
  getRoute(app, GET_HEALTHZ, [], (c) => c.json({ status: 'ok' }));
  getRoute(app, GET_READYZ, [], async (c) => {
    if (draining()) return c.json({ status: 'draining', checks: {} }, 503);
    const { reported, details } = await shared();
    const ready = reported.every(([, up]) => up);
    return c.json({
      status: ready ? 'ready' : 'unavailable',
      checks: Object.fromEntries(reported.map(([n, up]) => [n, up ? 'up' : 'down'])),
      ...(Object.keys(details).length ? { details } : {}),
    }, ready ? 200 : 503);
  });
  return app;
}
