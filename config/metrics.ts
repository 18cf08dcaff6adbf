// The process's one Prometheus registry (served at GET /metrics), with Node's default process metrics.
import { Registry, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'faultline_' });
