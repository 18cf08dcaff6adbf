// Prometheus metrics of the stage runtime. Names are declared once here; /metrics serves the registry.
import { Counter, Gauge, Histogram } from 'prom-client';
import { registry } from '../../config/metrics.js';

const records = new Counter({ name: 'faultline_stage_records_total', help: 'Records a stage handled', labelNames: ['stage'], registers: [registry] });
const rejected = new Counter({ name: 'faultline_stage_rejected_total', help: 'Records a stage dead-lettered, by reason code', labelNames: ['stage', 'code'], registers: [registry] });
const failures = new Counter({ name: 'faultline_stage_batch_failures_total', help: 'Batches that failed and will be redelivered', labelNames: ['stage'], registers: [registry] });
const recordRetries = new Counter({
  name: 'faultline_stage_record_retries_total', help: 'Retries of one record isolated from a failed batch (a poison record holds its partition meanwhile)', labelNames: ['stage'], registers: [registry],
});
const inFlight = new Gauge({
  name: 'faultline_stage_in_flight_records', help: 'Records a stage holds in a batch it is handling (not yet committed)', labelNames: ['stage'], registers: [registry],
});
const waiting = new Gauge({
  name: 'faultline_stage_waiting_partitions',
  help: 'Partitions a stage holds back until a later segment stored what it produced (fault-compute in a split shape, docs/pipeline.md#state-across-a-cut)',
  labelNames: ['stage'], registers: [registry],
});
const batchSeconds = new Histogram({
  name: 'faultline_stage_batch_seconds', help: 'Time to handle one batch, including the produce', labelNames: ['stage'], registers: [registry],
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
});

/**
 * Counts a dead letter once, under the stage that refused it (the letter names it): a chained segment's
 * letters are sent by the runner, so counting there and not per inner stage keeps the DLQ rate true.
 */
export function countDeadLetter(letter: { stage: string; code: string }): void {
  rejected.inc({ stage: letter.stage, code: letter.code });
}

export function stageMetrics(stage: string) {
  const labels = { stage };
  return {
    processed: (n: number) => records.inc(labels, n),
    failed: () => failures.inc(labels),
    recordRetried: () => recordRetries.inc(labels),
    batchTimer: () => batchSeconds.startTimer(labels),
    /** Counts `n` records in flight until the returned function is called. */
    holding: (n: number) => { inFlight.inc(labels, n); return () => inFlight.dec(labels, n); },
    /** Counts a partition held back until the returned function is called. */
    waiting: () => { waiting.inc(labels); return () => waiting.dec(labels); },
  };
}
