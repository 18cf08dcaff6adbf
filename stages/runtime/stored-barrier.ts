// A cut between a stage that rebuilds per-device state from Postgres and the segment that stores its output
// (fault-compute and persist with PIPELINE_SPLIT=persist or every): before that state is read, the stage waits
// until the storing segment's consumer group has committed every record produced so far to the partition
// (docs/pipeline.md#state-across-a-cut). persist commits only after its transaction, so Postgres then holds them.
import { log } from '../../config/log.js';
import { FaultlineError } from '../../errors/base.js';
import { endsOf, recordsBehind, type Behind } from './catch-up.js';
import { stageMetrics } from './metrics.js';
import type { BatchControls, Transport } from './transport/transport.js';
import { waitForGroup } from './wait-for-group.js';

/** The wait was given up (the consumer stops, or its membership is in question): the batch is delivered again. */
export class StoreWaitInterrupted extends FaultlineError<'STORE_WAIT_INTERRUPTED'> {
  constructor(message: string, cause?: unknown) { super('STORE_WAIT_INTERRUPTED', message, { retriable: true, cause }); }
}

/**
 * Resolves once the storing group has committed everything produced, before the call, to the partition of its
 * topic that holds the devices of the waiting stage's input partition `partition`. Throws StoreWaitInterrupted
 * when the batch's consumer stops or its group rebalances meanwhile.
 */
export type StoredBarrier = (partition: number, controls: BatchControls) => Promise<void>;

export interface StoredBarrierOptions {
  transport: Transport;
  /** The stage that waits (its logs and faultline_stage_waiting_partitions). */
  stage: string;
  /** The waiting stage's input topic. */
  input: string;
  /** The storing segment's consumer group, and the topic it reads (the waiting stage's output). */
  group: string;
  topic: string;
  pollMs?: number;
  /** A wait that goes on is logged again this often. */
  logEveryMs?: number;
}

export function storedBarrier({ transport, stage, input, group, topic, pollMs = 250, logEveryMs = 30_000 }: StoredBarrierOptions): StoredBarrier {
  const metrics = stageMetrics(stage);
  return async (partition, controls) => {
    const lag = await transport.groupLag(group, topic);
    // Keyed alike, with as many partitions, a device's records sit in the same partition on both sides of the cut;
    // with another count they may be in any, and every one is waited for. (Any group lists a topic's partitions.)
    const alike = lag.length === (await transport.groupLag(group, input)).length;
    const targets = endsOf(lag, alike ? [partition] : null);
    const began = Date.now();
    let logged = 0;
    const held: { release?: () => void } = {};
    const onLook = async (behind: Behind[]) => {
      if (behind.length === 0) return;
      if (!controls.isRunning()) throw new StoreWaitInterrupted(`${stage} stopped waiting for ${group} to store partition ${partition}: the consumer is stopping`);
      // A failed heartbeat: the group is rebalancing (this partition may be moving) or its coordinator is away.
      await controls.heartbeat().catch((err: unknown) => { throw new StoreWaitInterrupted(`${stage} stopped waiting for ${group} to store partition ${partition}: its own group's membership is in question`, err); });
      held.release ??= metrics.waiting();
      if (Date.now() - logged < logEveryMs) return;
      const fields = { stage, partition, group, topic, behind: behind.map((b) => ({ partition: b.partition, records: Number(b.records) })), waitedMs: Date.now() - began };
      if (logged === 0) log.info(fields, `${stage} waits for ${group} to store the ${recordsBehind(behind)} records it has not stored yet before it reads state from Postgres (split pipeline)`);
      else log.warn(fields, `${stage} still waits for ${group}: is it running and storing?`);
      logged = Date.now();
    };
    try {
      await waitForGroup(transport, group, topic, targets, { pollMs, onLook });
    } finally {
      held.release?.();
    }
    if (logged) log.info({ stage, partition, group, waitedMs: Date.now() - began }, `${group} stored what ${stage} computed before; it goes on`);
  };
}
