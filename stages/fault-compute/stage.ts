// fault-compute: fi.deduped.v1 -> fi.computed.v1.
import type pg from 'pg';
import { TOPICS } from '../../schemas/avro/topics.js';
import type { DedupedCheckIn } from '../../schemas/avro/values.js';
import type { Stage, StageResult } from '../runtime/stage.js';
import { computeMessage, type FaultRules } from './handler.js';
import { loadFaultState, type FaultState } from './state.js';

export function faultComputeStage({ pool, rules }: { pool: pg.Pool; rules: FaultRules }): Stage<DedupedCheckIn> {
  const cache = new Map<string, FaultState>();
  return {
    name: 'fault-compute',
    input: TOPICS.deduped,
    outputs: [TOPICS.computed],
    async onAssign() { cache.clear(); },
    async onRevoke() { cache.clear(); },
    async handle(batch): Promise<StageResult> {
      const missing = [...new Set(batch.messages.map((m) => m.key))].filter((imei) => !cache.has(imei));
      for (const [imei, state] of await loadFaultState(pool, missing)) cache.set(imei, state);
      const working = new Map<string, FaultState>();
      const produce = batch.messages.map(({ value }) => {
        const imei = value.checkIn.device_data.IMEINumber;
        const { value: computed, state } = computeMessage(value, working.get(imei) ?? cache.get(imei)!, rules);
        working.set(imei, state);
        return { topic: TOPICS.computed, key: imei, value: computed };
      });
      return { produce, deadLetters: [], onSent: () => { for (const [imei, state] of working) cache.set(imei, state); } };
    },
  };
}
