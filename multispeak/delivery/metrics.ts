// Delivery metrics (issue 8: pending, sent, failed, latency), on the process registry served at /metrics.
import { Counter, Gauge, Histogram } from 'prom-client';
import { registry } from '../../config/metrics.js';

export const deliveryMetrics = {
  pending: new Gauge({ name: 'faultline_outbox_pending', help: 'Outbox rows not yet delivered and not dead', registers: [registry] }),
  sent: new Counter({ name: 'faultline_outbox_sent_total', help: 'Notifications the OMS accepted', labelNames: ['integration', 'operation'], registers: [registry] }),
  failed: new Counter({ name: 'faultline_outbox_failed_total', help: 'Failed delivery attempts, by reason code', labelNames: ['integration', 'code'], registers: [registry] }),
  dead: new Counter({ name: 'faultline_outbox_dead_total', help: 'Rows given up (maximum age or unusable payload)', labelNames: ['integration'], registers: [registry] }),
  resyncs: new Counter({ name: 'faultline_outbox_resyncs_total', help: 'Resyncs of every device\'s state after an OMS outage ended', labelNames: ['integration'], registers: [registry] }),
  requestSeconds: new Histogram({
    name: 'faultline_outbox_request_seconds', help: 'Time of one POST to the OMS', labelNames: ['integration'], registers: [registry],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  }),
  acknowledgedSeconds: new Histogram({
    name: 'faultline_oms_acknowledged_seconds', help: 'From a check-in stored (its notification written to the outbox) to the OMS accepting the notification, per organisation',
    labelNames: ['organization'], registers: [registry],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600],
  }),
  latencySeconds: new Histogram({
    name: 'faultline_outbox_latency_seconds', help: 'From outbox insert to delivery', labelNames: ['integration'], registers: [registry],
    buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 21600, 86400],
  }),
};
