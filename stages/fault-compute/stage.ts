// fault-compute: fi.deduped.v1 -> fi.computed.v1.
import type pg from 'pg';
import { TOPICS } from '../../schemas/avro/topics.js';
import { CHAIN_INPUT } from '../shape.js';
import type { DedupedCheckIn } from '../../schemas/avro/values.js';
import type { Stage, StageResult } from '../runtime/stage.js';
import { deviceCache } from '../runtime/device-cache.js';
import { candidatesWanted, computeMessage, needsRecordBefore, summaryOf, type FaultRules } from './handler.js';
import { loadFaultState, recordBefore, shiftCandidatesBetween, type FaultState, type RecordSummary } from './state.js';

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
      const produce = [];
      // This batch's records, not yet in Postgres: a very late check-in's previous may be one of them.
      const computedHere = new Map<string, RecordSummary[]>();
      for (const { value } of batch.messages) {
        const { IMEINumber: imei, date } = value.checkIn.device_data;
        const held = view.get(imei);
        const here = computedHere.get(imei) ?? [];
        // A check-in older than every record held (very late, or replayed): its previous record from Postgres.
        const records = needsRecordBefore(held, date) ? [...here, ...await recordBefore(pool, imei, date)] : [];
        const window = candidatesWanted(held, value.checkIn);
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
