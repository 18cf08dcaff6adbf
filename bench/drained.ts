// When a measured phase of a pipeline bench ends: once every consumer group of the stages has committed
// everything (lag 0 on every partition), not at the last stored row. In the chain, notify (alarms, outbox) runs
// after persist stored the batch, and with batches of up to 1,000 much of a phase's notify work is still to come
// when the last row appears; a clock or CPU reading taken there leaves that tail out. Only a committed offset
// (the runner commits after the segment's last stage) says a record's work is done
// (bench/results/postgres-cost.md, "Why the transition count varied").
import { CHAIN_INPUT, segmentsOf } from '../stages/shape.js';
import type { ChainStage } from '../config/pipeline-split.js';
import { TOPICS } from '../schemas/avro/topics.js';
import type { PartitionLag, Transport } from '../stages/runtime/transport/transport.js';

/** Where one consumer group stands: a Subscription of this process, or the broker asked about a group. */
export interface LagSource { lag(): Promise<PartitionLag[]> }

/**
 * Records the groups have not committed yet, summed over their partitions (0: drained). Give the sources in
 * chain order: each is read after the ones upstream of it, so what an upstream segment produced before its
 * commit is already in the log when the downstream group's lag is read.
 */
export async function uncommitted(sources: Iterable<LagSource>): Promise<number> {
  let total = 0n;
  for (const source of sources) {
    for (const p of await source.lag()) {
      const behind = BigInt(p.end) - BigInt(p.next);
      if (behind > 0n) total += behind;
    }
  }
  return Number(total);
}

/**
 * The consumer groups of the pipeline as the broker sees them, wherever its stages run (this process or
 * `faultline start` children): one per segment of the shape (the group named after its first stage,
 * stages/runtime/runner.ts), in chain order, then the dead-letter reader.
 */
export function pipelineGroups(transport: Transport, cuts: readonly ChainStage[] = []): LagSource[] {
  const groups = [...segmentsOf(cuts).map(([head]) => ({ group: head!, topic: CHAIN_INPUT[head!] })), { group: 'rejected', topic: TOPICS.dlq }];
  return groups.map(({ group, topic }) => ({ lag: () => transport.groupLag(`faultline.${group}`, topic) }));
}
