// fault-compute: fi.deduped.v1 -> fi.computed.v1.
import type pg from 'pg';
import { TOPICS } from '../../schemas/avro/topics.js';
import { CHAIN_INPUT } from '../shape.js';
import type { DedupedCheckIn } from '../../schemas/avro/values.js';
import type { Stage, StageResult } from '../runtime/stage.js';
import { deviceCache } from '../runtime/device-cache.js';
import { computeMessage, type FaultRules } from './handler.js';
import { loadFaultState, type FaultState } from './state.js';

export function faultComputeStage({ pool, rules }: { pool: pg.Pool; rules: FaultRules }): Stage<DedupedCheckIn> {
  const cache = deviceCache<FaultState>((imeis) => loadFaultState(pool, imeis));
  return {
    name: 'fault-compute',
    input: CHAIN_INPUT['fault-compute'],
    outputs: [TOPICS.computed],
    async onAssign() { cache.clear(); },
    async onRevoke() { cache.clear(); },
    async handle(batch): Promise<StageResult> {
      const view = await cache.begin(batch.messages.map((m) => m.value.checkIn.device_data.IMEINumber));
      const produce = batch.messages.map(({ value }) => {
        const imei = value.checkIn.device_data.IMEINumber;
        const { value: computed, state } = computeMessage(value, view.get(imei), rules);
        view.set(imei, state);
        return { topic: TOPICS.computed, key: imei, value: computed };
      });
      return { produce, deadLetters: [], onSent: view.commit };
    },
  };
}
