// DNP3 metrics on the process registry served at /metrics (docs/monitoring.md#latency-of-real-traffic, docs/commissioning.md#commissioning-a-scada-master-dnp3):
// the three series every outstation keeps (integrations/master-metrics.ts).
import { outstationMetrics } from '../integrations/master-metrics.js';

export const dnp3Metrics = outstationMetrics({
  sessions: ['faultline_dnp3_sessions', 'SCADA master sessions connected to this process, per DNP3 integration (0 or 1; 0 for each configured integration until its master connects)'],
  refused: ['faultline_dnp3_discarded_total', 'DNP3 frames and requests the outstation discarded or refused, by reason (GET /api/dnp3/diagnostics says what each means)'],
  confirmedSeconds: ['faultline_dnp3_confirmed_seconds', 'From a check-in stored to the SCADA master confirming the DNP3 events it caused, per organisation'],
});
