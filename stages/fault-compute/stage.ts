// fault-compute: fi.deduped.v1 -> fi.computed.v1.
import type pg from 'pg';
import { TOPICS } from '../../schemas/avro/topics.js';
import { CHAIN_INPUT } from '../shape.js';
import type { DedupedCheckIn } from '../../schemas/avro/values.js';
import type { Stage, StageResult } from '../runtime/stage.js';
import type { StoredBarrier } from '../runtime/stored-barrier.js';
import type { BatchControls } from '../runtime/transport/transport.js';
import { deviceCache } from '../runtime/device-cache.js';
import { candidatesWanted, computeMessage, needsRecordBefore, summaryOf, type FaultRules } from './handler.js';
import { loadFaultState, recordBefore, shiftCandidatesBetween, type FaultState, type RecordSummary } from './state.js';

export interface FaultComputeOptions {
  pool: pg.Pool;
  rules: FaultRules;
  /**
   * Only when persist runs in another segment (PIPELINE_SPLIT=persist or every): resolves once persist stored
   * what was computed for a partition so far. Before it, Postgres may lack records this stage already computed.
   */
  stored?: StoredBarrier;
}

export function faultComputeStage({ pool, rules, stored }: FaultComputeOptions): Stage<DedupedCheckIn> {
  const cache = deviceCache<FaultState>((imeis) => loadFaultState(pool, imeis));
  // Split shape (docs/pipeline.md#state-across-a-cut): the cache is rebuilt from Postgres after each clear, so
  // the first batch of each partition after a clear waits until persist stored what was computed before it.
  let clears = 0;
  /** Per input partition: the clear since which persist was found to have stored everything computed before it. */
  const storedSince = new Map<number, number>();
  const clear = () => { cache.clear(); clears++; };
  /** True when it had to look (so, in this batch, Postgres holds everything computed before it). */
  const untilStored = async (partition: number, controls: BatchControls): Promise<boolean> => {
    let looked = false;
    // A clear during the wait (a join while this batch waited) may mean another member moved the partition on: again.
    while (stored && storedSince.get(partition) !== clears) {
      const at = clears;
      await stored(partition, controls);
      storedSince.set(partition, at);
      looked = true;
    }
    return looked;
  };
  return {
    name: 'fault-compute',
    input: CHAIN_INPUT['fault-compute'],
    outputs: [TOPICS.computed],
    async onAssign() { clear(); },
    async onRevoke() { clear(); },
    async handle(batch, controls): Promise<StageResult> {
      let storedBefore = await untilStored(batch.partition, controls);
      const view = await cache.begin(batch.messages.map((m) => m.value.checkIn.device_data.IMEINumber));
      const produce = [];
      // This batch's records, not yet in Postgres: a very late check-in's previous may be one of them.
      const computedHere = new Map<string, RecordSummary[]>();
      for (const { value } of batch.messages) {
        const { IMEINumber: imei, date } = value.checkIn.device_data;
        const held = view.get(imei);
        const here = computedHere.get(imei) ?? [];
        // A check-in older than every record held (very late, or replayed): its previous record from Postgres.
        const older = needsRecordBefore(held, date);
        const window = candidatesWanted(held, value.checkIn);
        // The held records are bounded, so what this stage computed earlier may have left them; in a split shape
        // Postgres has it only once persist stored it (docs/pipeline.md#state-across-a-cut). Once per batch.
        if (stored && (older || window) && !storedBefore) {
          await stored(batch.partition, controls);
          storedBefore = true;
        }
        const records = older ? [...here, ...await recordBefore(pool, imei, date)] : [];
        const events = window ? await shiftCandidatesBetween(pool, imei, window) : [];
        const { value: computed, state } = computeMessage(value, held, rules, { records, events });
        view.set(imei, state);
        here.push(summaryOf(value, computed.ActualOngoingFault));
        computedHere.set(imei, here);
        produce.push({ topic: TOPICS.computed, key: imei, value: computed });
      }
      return { produce, deadLetters: [], onSent: view.commit };
    },
  };
}
