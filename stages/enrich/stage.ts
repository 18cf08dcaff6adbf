// enrich: fi.raw.v1 -> fi.enriched.v1 (or the dead-letter topic).
import type pg from 'pg';
import type { ModelMap } from '../../domain/model-replacement.js';
import { isImei } from '../../domain/validate-message.js';
import { TOPICS } from '../../schemas/avro/topics.js';
import { CHAIN_INPUT } from '../shape.js';
import type { RawMessage } from '../../schemas/avro/values.js';
import type { Stage, StageResult } from '../runtime/stage.js';
import { findDevices } from './devices.js';
import { checkTestFaultMark, enrichMessage } from './handler.js';
import type { EnrichedCheckIn } from '../../schemas/avro/values.js';

/** `id:IMEI` of the test faults these marks name that exist (docs/decisions.md#test-faults). */
async function knownTestFaults(pool: pg.Pool, values: readonly EnrichedCheckIn[]): Promise<Set<string>> {
  const ids = [...new Set(values.flatMap((v) => (v.checkIn.test_fault ? [v.checkIn.test_fault.id] : [])))];
  if (ids.length === 0) return new Set();
  const { rows } = await pool.query<{ id: number; IMEINumber: string }>('select id, "IMEINumber" from test_faults where id = any($1)', [ids]);
  return new Set(rows.map((r) => `${r.id}:${r.IMEINumber}`));
}

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
      const outcomes = batch.messages.map(({ value: raw }) => ({ raw, outcome: enrichMessage(source ? { ...raw, source } : raw, devices.get(raw.imei) ?? null, rules, now) }));
      const known = await knownTestFaults(pool, outcomes.flatMap((o) => (o.outcome.ok ? [o.outcome.value] : [])));
      for (const { raw, outcome: first } of outcomes) {
        const outcome = first.ok ? checkTestFaultMark(first.value, known, raw.body, now) : first;
        if (outcome.ok) result.produce.push({ topic: TOPICS.enriched, key: outcome.value.checkIn.device_data.IMEINumber, value: outcome.value });
        else result.deadLetters.push(outcome.deadLetter);
      }
      return result;
    },
  };
}
