// Prometheus metrics of the Kafka consumer groups as this process sees them (docs/monitoring.md,
// ops/prometheus): how often each group rebalanced, and how many partitions this process owns in each. Lag
// (records and seconds) is read at scrape time by stages/runtime/lag-metric.ts.
import { Counter, Gauge } from 'prom-client';
import { registry } from '../../../config/metrics.js';

const rebalances = new Counter({
  name: 'faultline_kafka_rebalances_total',
  help: 'Rebalances this process took part in (a new assignment after a member joined, left or was lost), per consumer group',
  labelNames: ['group'], registers: [registry],
});
const assigned = new Gauge({
  name: 'faultline_kafka_assigned_partitions',
  help: 'Partitions of the topic this process owns in the consumer group (0: it consumes nothing)',
  labelNames: ['group', 'topic'], registers: [registry],
});

export const kafkaGroupMetrics = (group: string, topic: string) => ({
  /** A new assignment of `partitions` partitions (kafkajs GROUP_JOIN). */
  joined(partitions: number) {
    rebalances.inc({ group });
    assigned.set({ group, topic }, partitions);
  },
  /** Out of the group (stopped or crashed): it owns nothing. */
  left() {
    assigned.set({ group, topic }, 0);
  },
});
