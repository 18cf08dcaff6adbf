// The process's one Prometheus registry (served at GET /metrics), with Node's default process metrics.
import { Registry, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'faultline_' });

/** Seconds from a check-in stored to a SCADA master acknowledging its events: one scale for DNP3 and IEC 104, so their panels compare. */
export const SCADA_CONFIRM_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900];
