// IEC 104 metrics on the process registry served at /metrics, the same three DNP3 has (dnp3/metrics.ts): is a
// master connected, what the station refused, how late the master acknowledges events (docs/monitoring.md#pipeline-and-kafka).
import { Counter, Gauge, Histogram } from 'prom-client';
import { registry, SCADA_CONFIRM_BUCKETS } from '../config/metrics.js';

export const iec104Metrics = {
  sessions: new Gauge({
    name: 'faultline_iec104_sessions', help: 'IEC 104 controlling stations of this process that started data transfer (STARTDT), per integration (0 or 1: the redundancy group\'s active connection; 0 for each configured integration until its master starts)',
    labelNames: ['integration'], registers: [registry],
  }),
  refused: new Counter({
    name: 'faultline_iec104_refused_total', help: 'ASDUs and APDUs the IEC 104 station refused or discarded, by integration and reason (GET /api/iec104/diagnostics says what each means); TLS refusals are in faultline_scada_master_refused_total',
    labelNames: ['integration', 'reason'], registers: [registry],
  }),
  confirmedSeconds: new Histogram({
    name: 'faultline_iec104_confirmed_seconds', help: 'From a check-in stored to the IEC 104 master acknowledging the spontaneous events it caused, per organisation',
    labelNames: ['organization'], registers: [registry],
    buckets: SCADA_CONFIRM_BUCKETS,
  }),
};
