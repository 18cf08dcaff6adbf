// faultline_consumer_lag_records: records on each input topic that this process' consumer groups have not
// committed yet, read from the broker at scrape time (README "Operator's guide", ops/prometheus).
import { Gauge } from 'prom-client';
import { registry } from '../../config/metrics.js';
import type { Subscription } from './transport/transport.js';

export function exposeConsumerLag(subscriptions: ReadonlyMap<string, Subscription>): void {
  new Gauge({
    name: 'faultline_consumer_lag_records',
    help: 'Records on the input topic not yet committed by the consumer group, summed over partitions',
    labelNames: ['consumer'],
    registers: [registry],
    async collect() {
      for (const [consumer, sub] of subscriptions) {
        try {
          const parts = await sub.lag();
          this.set({ consumer }, parts.reduce((n, p) => n + Math.max(0, Number(BigInt(p.end) - BigInt(p.next))), 0));
        } catch { /* broker away: keep the last value; /readyz says what is down */ }
      }
    },
  });
}
