// The SCADA master listener's metrics, one set for every protocol it serves (docs/monitoring.md, docs/decisions.md#scada-master-identity-and-listener).
import { Counter, Gauge, Histogram } from 'prom-client';
import { registry, SCADA_CONFIRM_BUCKETS } from '../config/metrics.js';

export const masterMetrics = {
  refused: new Counter({
    name: 'faultline_scada_master_refused_total',
    help: 'SCADA master connections refused or cut off by the listener (DNP3, IEC 104), by protocol and reason: a failed or late TLS handshake, a certificate that maps to no integration or not to this one, a cap (busy), an integration disabled or changed since (revoked)',
    labelNames: ['protocol', 'reason'], registers: [registry],
  }),
  unreadable: new Gauge({
    name: 'faultline_scada_master_integrations_unreadable',
    help: 'Enabled SCADA master integrations not admitted because a certificate file they name (caFile, pinnedCertificateFile) could not be read or holds no certificate, as of the last reload, by protocol',
    labelNames: ['protocol'], registers: [registry],
  }),
  unboundPorts: new Gauge({
    name: 'faultline_scada_master_ports_unbound',
    help: 'Dedicated ports enabled SCADA master integrations name that are not listening (in use, or one of the service\'s own fixed ports), as of the last reload, by protocol: their masters are not served',
    labelNames: ['protocol'], registers: [registry],
  }),
};

/** A metric's name and help text. */
type Described = readonly [name: string, help: string];

/**
 * The three series every outstation keeps, one set per protocol (dnp3/metrics.ts, iec104/metrics.ts): is a master
 * connected (per integration), what the outstation refused or discarded (per integration and reason), and how late
 * the master confirms the events a stored check-in caused (per organisation).
 */
export function outstationMetrics(d: { sessions: Described; refused: Described; confirmedSeconds: Described }) {
  return {
    sessions: new Gauge({ name: d.sessions[0], help: d.sessions[1], labelNames: ['integration'], registers: [registry] }),
    refused: new Counter({ name: d.refused[0], help: d.refused[1], labelNames: ['integration', 'reason'], registers: [registry] }),
    confirmedSeconds: new Histogram({
      name: d.confirmedSeconds[0], help: d.confirmedSeconds[1], labelNames: ['organization'], registers: [registry],
      buckets: SCADA_CONFIRM_BUCKETS,
    }),
  };
}
