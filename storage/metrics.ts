// Storage lifecycle metrics on the process registry served at /metrics (docs/monitoring.md#retention-and-archive):
// whether the daily run (partitions ahead, strays, retention with its archive) fails, and when retention last
// completed. Only the process that held retention's lock sets the last success, so read it as the max over processes.
import { Counter, Gauge } from 'prom-client';
import { registry } from '../config/metrics.js';

export const storageMetrics = {
  maintenanceFailures: new Counter({
    name: 'faultline_storage_maintenance_failures_total',
    help: 'Daily storage runs (partitions ahead, rows out of the default partitions, retention) that failed as a whole',
    registers: [registry],
  }),
  retentionFailedSteps: new Counter({
    name: 'faultline_retention_failed_steps_total',
    help: 'Retention steps (archive a month, verify the file, remove the rows) that failed and were left for the next run',
    registers: [registry],
  }),
  retentionLastSuccess: new Gauge({
    name: 'faultline_retention_last_success_timestamp_seconds',
    help: 'When this process last completed retention with every step done (0: not yet; another process may hold the lock)',
    registers: [registry],
  }),
};
