// What a stage is: a named consumer of one topic that turns a batch into records to produce and records to
// dead-letter. The runner (runner.ts) owns everything else: decoding, retry, the dead-letter topic, commit.
import type { DeadLetter } from '../../schemas/avro/values.js';
import type { Batch, BatchControls, OutMessage } from './transport/transport.js';

export interface StageResult {
  produce: OutMessage[];
  deadLetters: DeadLetter[];
  /**
   * Called once `produce` and `deadLetters` were sent. A stage that caches per-device state applies the
   * batch's changes here: if the send fails the batch is redelivered, and a cache already ahead of the log
   * would drop records that were never forwarded.
   */
  onSent?: () => void;
}

export interface Stage<In> {
  /** Short name: metrics carry it as a label, and the consumer group is `faultline.<name>` unless `group` says otherwise. */
  readonly name: string;
  /** Consumer group suffix when it is not `name`: a chained segment takes its first stage's (runtime/chain.ts). */
  readonly group?: string;
  readonly input: string;
  /** Topics the stage may write besides the dead-letter topic (created at start). */
  readonly outputs: readonly string[];
  /**
   * One batch of one partition, in offset order. A record that can never succeed for its data becomes a dead
   * letter with its code. Throw for trouble worth retrying (database or broker away): the runner redelivers the
   * whole batch. Anything else thrown is taken for a poison record: the runner narrows the batch down to it,
   * retries it alone and dead-letters it as PROCESSING_FAILED (runner.ts), so `handle` may be called again
   * with a part of a batch it already saw. `controls` are the batch's (transport.ts): a stage that waits
   * (fault-compute for persist in a split shape) stops waiting when the consumer stops or its group rebalances.
   */
  handle(batch: Batch<In>, controls: BatchControls): Promise<StageResult>;
  /** Per-device caches: dropped on revoke, rebuilt (lazily or eagerly) on assign. */
  onAssign?(partitions: number[]): Promise<void>;
  onRevoke?(partitions: number[]): Promise<void>;
}

export const emptyResult = (): StageResult => ({ produce: [], deadLetters: [] });
