// The sources' counters (Source.stats()) as Prometheus metrics, read at scrape time.
import { Gauge } from 'prom-client';
import { registry } from '../../config/metrics.js';
import type { Source, SourceStats } from './source.js';

export function exposeSourceStats(kind: string, source: Source): void {
  new Gauge({
    name: 'faultline_source_messages',
    help: 'Queue messages handled by the source since start, by outcome',
    labelNames: ['source', 'outcome'],
    registers: [registry],
    collect() {
      const stats = source.stats();
      for (const outcome of Object.keys(stats) as (keyof SourceStats)[]) this.set({ source: kind, outcome }, stats[outcome] ?? 0);
    },
  });
}
