// dedup: fi.enriched.v1 -> fi.deduped.v1, with per-device state cached for the partitions this process owns.
import type pg from 'pg';
import { Counter } from 'prom-client';
import { registry } from '../../config/metrics.js';
import { TOPICS } from '../../schemas/avro/topics.js';
import { CHAIN_INPUT } from '../shape.js';
import type { EnrichedCheckIn } from '../../schemas/avro/values.js';
import type { Stage, StageResult } from '../runtime/stage.js';
import { deviceCache } from '../runtime/device-cache.js';
import { dedupMessage, tableOf } from './handler.js';
import { historyTooShort, loadDedupState, loadHistoryBefore, type DedupState } from './state.js';

const duplicates = new Counter({ name: 'faultline_duplicate_checkins_total', help: 'Check-ins recognised as resent (same IMEI and date)', registers: [registry] });
const droppedEvents = new Counter({ name: 'faultline_dropped_events_total', help: 'Events dropped as already stored (spec 6.1 step 6)', registers: [registry] });

export function dedupStage({ pool }: { pool: pg.Pool }): Stage<EnrichedCheckIn> {
  const cache = deviceCache<DedupState>((imeis) => loadDedupState(pool, imeis));
  return {
    name: 'dedup',
    input: CHAIN_INPUT.dedup,
    outputs: [TOPICS.deduped],
    async onAssign() { cache.clear(); },
    async onRevoke() { cache.clear(); },
    async handle(batch): Promise<StageResult> {
      const view = await cache.begin(batch.messages.map((m) => m.value.checkIn.device_data.IMEINumber));
      const result: StageResult = { produce: [], deadLetters: [], onSent: view.commit };
      for (const { value } of batch.messages) {
        const imei = value.checkIn.device_data.IMEINumber;
        const state = view.get(imei);
        const table = tableOf(value);
        const date = value.checkIn.device_data.date;
        const older = historyTooShort(state[table], date) ? await loadHistoryBefore(pool, imei, table, date) : [];
        const decision = dedupMessage(value, state, older);
        view.set(imei, decision.state);
        if (decision.duplicate) duplicates.inc();
        if (decision.forward) {
          droppedEvents.inc(decision.forward.droppedEvents);
          result.produce.push({ topic: TOPICS.deduped, key: imei, value: decision.forward });
        }
      }
      return result;
    },
  };
}
