// enrich: fi.raw.v1 -> fi.enriched.v1 (or the dead-letter topic).
import type pg from 'pg';
import type { ModelMap } from '../../domain/model-replacement.js';
import { isImei } from '../../domain/validate-message.js';
import { TOPICS } from '../../schemas/avro/topics.js';
import { CHAIN_INPUT } from '../shape.js';
import type { RawMessage } from '../../schemas/avro/values.js';
import type { Stage, StageResult } from '../runtime/stage.js';
import { findDevices } from './devices.js';
import { enrichMessage } from './handler.js';

export interface EnrichStageOptions {
  pool: pg.Pool;
  modelMap: ModelMap;
  /** Replay marks its records so notify does not send customers what they already have. */
  source?: string;
}

export function enrichStage({ pool, modelMap, source }: EnrichStageOptions): Stage<RawMessage> {
  const rules = { modelMap };
  return {
    name: 'enrich',
    input: CHAIN_INPUT.enrich,
    outputs: [TOPICS.enriched],
    async handle(batch): Promise<StageResult> {
      // Only well-formed IMEIs are looked up: the bridge keys a message by whatever its body claims, and one
      // hostile key (a NUL byte, which no Postgres text holds) would fail the lookup, and with it the whole
      // batch, on every redelivery: a blocked partition. A malformed IMEI is never a registered device, and
      // the validator dead-letters its message.
      const devices = await findDevices(pool, [...new Set(batch.messages.map((m) => m.value.imei).filter(isImei))]);
      const result: StageResult = { produce: [], deadLetters: [] };
      const now = Date.now();
      for (const { value: raw } of batch.messages) {
        const outcome = enrichMessage(source ? { ...raw, source } : raw, devices.get(raw.imei) ?? null, rules, now);
        if (outcome.ok) result.produce.push({ topic: TOPICS.enriched, key: outcome.value.checkIn.device_data.IMEINumber, value: outcome.value });
        else result.deadLetters.push(outcome.deadLetter);
      }
      return result;
    },
  };
}
