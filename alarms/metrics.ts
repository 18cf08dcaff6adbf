// Alarm metrics, on the process registry served at /metrics.
import { Counter, Gauge, Histogram } from 'prom-client';
import { registry } from '../config/metrics.js';

export const alarmMetrics = {
  raised: new Counter({ name: 'faultline_alarms_raised_total', help: 'Alarms raised by the communication-lost clock', labelNames: ['kind'], registers: [registry] }),
  pending: new Gauge({ name: 'faultline_alarm_outbox_pending', help: 'Alarm messages not yet delivered and not dead', registers: [registry] }),
  sent: new Counter({ name: 'faultline_alarm_messages_sent_total', help: 'Alarm messages delivered, by message kind', labelNames: ['kind'], registers: [registry] }),
  failed: new Counter({ name: 'faultline_alarm_messages_failed_total', help: 'Failed alarm message attempts, by reason code', labelNames: ['code'], registers: [registry] }),
  dead: new Counter({ name: 'faultline_alarm_messages_dead_total', help: 'Alarm messages given up after ALARM_MAX_AGE_HOURS', registers: [registry] }),
  suppressed: new Counter({ name: 'faultline_alarm_messages_capped_total', help: 'Alarm messages not sent because the recipient reached its cap', registers: [registry] }),
  latencySeconds: new Histogram({
    name: 'faultline_alarm_message_latency_seconds', help: 'From alarm outbox insert to delivery', registers: [registry],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 60, 300, 3600],
  }),
};
