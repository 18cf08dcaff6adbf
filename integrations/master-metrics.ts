// The SCADA master listener's metrics, one set for every protocol it serves (docs/monitoring.md, docs/decisions.md#scada-master-identity-and-listener).
import { Counter, Gauge } from 'prom-client';
import { registry } from '../config/metrics.js';

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
