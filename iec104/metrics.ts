// IEC 104 metrics on the process registry served at /metrics, the same three DNP3 has (integrations/master-metrics.ts):
// is a master connected, what the station refused, how late the master acknowledges events (docs/monitoring.md#pipeline-and-kafka).
import { outstationMetrics } from '../integrations/master-metrics.js';

export const iec104Metrics = outstationMetrics({
  sessions: ['faultline_iec104_sessions', 'IEC 104 controlling stations of this process that started data transfer (STARTDT), per integration (0 or 1: the redundancy group\'s active connection; 0 for each configured integration until its master starts)'],
  refused: ['faultline_iec104_refused_total', 'ASDUs and APDUs the IEC 104 station refused or discarded, by integration and reason (GET /api/iec104/diagnostics says what each means); TLS refusals are in faultline_scada_master_refused_total'],
  confirmedSeconds: ['faultline_iec104_confirmed_seconds', 'From a check-in stored to the IEC 104 master acknowledging the spontaneous events it caused, per organisation'],
});
