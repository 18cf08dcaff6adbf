// Where a consumer group stands against offsets it has to reach: replay waits for each live segment to apply
// what it re-sent (stages/replay.ts), and fault-compute in a split shape for persist to store what it computed
// (docs/pipeline.md#state-across-a-cut). Pure: no I/O; the wait itself is wait-for-group.ts.
import type { PartitionLag } from './transport/transport.js';

/** A partition whose group has not yet committed up to its target, and by how many records. */
export interface Behind { partition: number; records: bigint }

/** The partitions of `lag` whose next offset is short of their target (a partition without one has none). */
export function stillBehind(lag: readonly Pick<PartitionLag, 'partition' | 'next'>[], targets: ReadonlyMap<number, bigint>): Behind[] {
  return lag.flatMap(({ partition, next }) => {
    const records = (targets.get(partition) ?? 0n) - BigInt(next);
    return records > 0n ? [{ partition, records }] : [];
  });
}

export const recordsBehind = (behind: readonly Behind[]): bigint => behind.reduce((sum, b) => sum + b.records, 0n);

/** The log ends in `lag` as targets: of `partitions`, or of every partition when null. */
export function endsOf(lag: readonly Pick<PartitionLag, 'partition' | 'end'>[], partitions: readonly number[] | null): Map<number, bigint> {
  return new Map(lag.filter((p) => partitions === null || partitions.includes(p.partition)).map((p) => [p.partition, BigInt(p.end)]));
}
