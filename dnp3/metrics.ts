// DNP3 metrics on the process registry served at /metrics (docs/monitoring.md#latency-of-real-traffic, docs/commissioning.md#commissioning-a-scada-master-dnp3).
import { Counter, Gauge, Histogram } from 'prom-client';
import { registry, SCADA_CONFIRM_BUCKETS } from '../config/metrics.js';

export const dnp3Metrics = {
  sessions: new Gauge({
    name: 'faultline_dnp3_sessions', help: 'SCADA master sessions connected to this process, per DNP3 integration (0 or 1; 0 for each configured integration until its master connects)',
    labelNames: ['integration'], registers: [registry],
  }),
  discarded: new Counter({
    name: 'faultline_dnp3_discarded_total', help: 'DNP3 frames and requests the outstation discarded or refused, by reason (GET /api/dnp3/diagnostics says what each means)',
    labelNames: ['integration', 'reason'], registers: [registry],
  }),
  confirmedSeconds: new Histogram({
    name: 'faultline_dnp3_confirmed_seconds', help: 'From a check-in stored to the SCADA master confirming the DNP3 events it caused, per organisation',
    labelNames: ['organization'], registers: [registry],
    buckets: SCADA_CONFIRM_BUCKETS,
  }),
};
