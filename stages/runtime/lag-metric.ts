// Consumer lag of this process' consumer groups, read from the broker at scrape time (docs/monitoring.md,
// ops/prometheus): records not yet committed, summed and per partition, and the age of the oldest
// unprocessed record (lag-age.ts).
import { Gauge } from 'prom-client';
import { registry } from '../../config/metrics.js';
import { LagAges } from './lag-age.js';
import type { PartitionLag, Subscription } from './transport/transport.js';

export function exposeConsumerLag(subscriptions: ReadonlyMap<string, Subscription>): void {
  // One broker read per scrape serves the three gauges; the others are collected in the same scrape, after it.
  let reading: Promise<Map<string, PartitionLag[]>> | null = null;
  const read = () => {
    reading ??= (async () => {
      const lags = new Map<string, PartitionLag[]>();
      for (const [consumer, sub] of subscriptions) {
        try {
          lags.set(consumer, await sub.lag());
        } catch { /* broker away: keep the last values; /readyz says what is down */ }
      }
      return lags;
    })().finally(() => { setImmediate(() => { reading = null; }); });
    return reading;
  };
  const ages = new LagAges();
  const behind = (p: PartitionLag) => Math.max(0, Number(BigInt(p.end) - BigInt(p.next)));

  new Gauge({
    name: 'faultline_consumer_lag_records',
    help: 'Records on the input topic not yet committed by the consumer group, summed over partitions',
    labelNames: ['consumer'],
    registers: [registry],
    async collect() {
      for (const [consumer, parts] of await read()) this.set({ consumer }, parts.reduce((n, p) => n + behind(p), 0));
    },
  });
  new Gauge({
    name: 'faultline_consumer_partition_lag_records',
    help: 'Records on one partition of the input topic not yet committed by the consumer group',
    labelNames: ['consumer', 'partition'],
    registers: [registry],
    async collect() {
      for (const [consumer, parts] of await read()) for (const p of parts) this.set({ consumer, partition: String(p.partition) }, behind(p));
    },
  });
  new Gauge({
    name: 'faultline_consumer_lag_seconds',
    help: 'Age of the oldest record on the input topic the consumer group has not committed (0: caught up); a lower bound while no batch is in hand',
    labelNames: ['consumer'],
    registers: [registry],
    async collect() {
      const now = Date.now();
      for (const [consumer, parts] of await read()) this.set({ consumer }, Math.max(0, ...parts.map((p) => ages.age(`${consumer}/${p.partition}`, p, now))));
    },
  });
}
