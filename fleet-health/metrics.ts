// Fleet worker metrics on the process registry served at /metrics (docs/monitoring.md#fleet): the steps it ran and
// those that failed (retried on the next tick), by step.
import { Counter } from 'prom-client';
import { registry } from '../config/metrics.js';

export const fleetMetrics = {
  stepRuns: new Counter({ name: 'faultline_fleet_step_runs_total', help: 'Fleet worker steps committed, by step', labelNames: ['step'], registers: [registry] }),
  stepFailures: new Counter({ name: 'faultline_fleet_step_failures_total', help: 'Fleet worker steps that failed and were rolled back (tried again on the next tick), by step', labelNames: ['step'], registers: [registry] }),
};
