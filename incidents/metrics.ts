// Incident worker metrics on the process registry served at /metrics (docs/monitoring.md#incidents): how far the
// worker is behind the fault events persist leaves in incident_inbox, read from Postgres at scrape time (the
// inbox is shared by every worker process, so every process reports the same figures), and failed steps.
import type pg from 'pg';
import { Counter, Gauge } from 'prom-client';
import { registry } from '../config/metrics.js';

/** The pool of the worker started last in this process (one in production; several in some tests). */
let inboxPool: pg.Pool | null = null;

let reading: Promise<{ pending: number; oldestSeconds: number } | null> | null = null;
function readInbox(): Promise<{ pending: number; oldestSeconds: number } | null> {
  const pool = inboxPool;
  if (!pool) return Promise.resolve(null);
  // One query per scrape serves both gauges (collected one after the other in the same scrape).
  reading ??= pool.query<{ pending: string; oldest: number | null }>(
    'select count(*) as pending, extract(epoch from clock_timestamp() - min(stored_at))::float8 as oldest from incident_inbox')
    .then(({ rows }) => ({ pending: Number(rows[0]!.pending), oldestSeconds: Math.max(0, rows[0]!.oldest ?? 0) }))
    .catch(() => null) // database away: no sample; /readyz and faultline_ready say what is down
    .finally(() => { setImmediate(() => { reading = null; }); });
  return reading;
}

new Gauge({
  name: 'faultline_incident_inbox_pending',
  help: 'Fault events stored by persist and not yet taken by the incident worker (incident_inbox)',
  registers: [registry],
  async collect() {
    const inbox = await readInbox();
    if (inbox) this.set(inbox.pending);
  },
});
new Gauge({
  name: 'faultline_incident_inbox_oldest_seconds',
  help: 'Age of the oldest fault event waiting for the incident worker (0: none waiting): the worker\'s lag',
  registers: [registry],
  async collect() {
    const inbox = await readInbox();
    if (inbox) this.set(inbox.oldestSeconds);
  },
});

export const incidentMetrics = {
  stepFailures: new Counter({ name: 'faultline_incident_step_failures_total', help: 'Incident steps that failed and were retried on the next tick', registers: [registry] }),
  /** The worker's pool: the inbox gauges read it at scrape time. */
  watch(pool: pg.Pool): void { inboxPool = pool; },
};
