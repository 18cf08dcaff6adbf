// How old the oldest unprocessed record of a partition is (faultline_consumer_lag_seconds). Kafka has no call
// that answers "when was the record at offset N appended", so:
// - when the transport knows it (the first record of the batch a consumer has in hand, or the in-process
//   log), the age is exact;
// - otherwise (the consumer is stopped, crashed, or between batches) it is a lower bound from the log's end
//   offsets seen at earlier scrapes: the record at `next` existed at the first scrape that saw the end pass
//   it, so it is at least that old. Its resolution is the scrape interval, and it starts at 0 when the
//   process starts.
import type { PartitionLag } from './transport/transport.js';

const MAX_SAMPLES = 512;

export class LagAges {
  /** Per key (consumer and partition): when each end offset was first seen, oldest first. */
  private readonly samples = new Map<string, { at: number; end: bigint }[]>();

  /** Seconds since the oldest unprocessed record of `lag` was appended (0: nothing unprocessed). */
  age(key: string, lag: PartitionLag, now: number): number {
    const [next, end] = [BigInt(lag.next), BigInt(lag.end)];
    let seen = this.samples.get(key);
    if (!seen) this.samples.set(key, (seen = []));
    // Ends at or below `next` say nothing about records still unprocessed.
    while (seen.length && seen[0]!.end <= next) seen.shift();
    if (end > next && (seen.length === 0 || seen[seen.length - 1]!.end < end)) seen.push({ at: now, end });
    // A consumer stopped for long: thin out the middle, keeping the oldest (what the age is read from).
    if (seen.length > MAX_SAMPLES) this.samples.set(key, seen.filter((_, i) => i % 2 === 0 || i === seen.length - 1));
    if (end <= next) return 0;
    if (lag.oldestTimestamp !== undefined) return Math.max(0, (now - lag.oldestTimestamp) / 1000);
    return Math.max(0, (now - seen[0]!.at) / 1000);
  }
}
