// enrich, the pure part (spec 6.1 steps 1 to 3): validate the raw body, replace the model, attach the device
// snapshot and the CurrentName/Lat/Long copies. A message that fails validation becomes a dead letter.
import { Temporal } from 'temporal-polyfill';
import type { DeviceSnapshot } from '../../domain/checkin.js';
import { enrich } from '../../domain/enrichment.js';
import { replaceModel, type ModelMap } from '../../domain/model-replacement.js';
import { parseQueueMessage } from '../../domain/validate-message.js';
import type { DeadLetter, EnrichedCheckIn, RawMessage } from '../../schemas/avro/values.js';

export type EnrichOutcome = { ok: true; value: EnrichedCheckIn } | { ok: false; deadLetter: DeadLetter };

export interface EnrichRules {
  modelMap: ModelMap;
  maxBodyBytes?: number;
}

/** `device` is the registered, non-deleted device with the message's IMEI, or null. `now` is ms. */
export function enrichMessage(raw: RawMessage, device: DeviceSnapshot | null, rules: EnrichRules, now: number): EnrichOutcome {
  // Future timestamps are judged against the time the source received the message, so a replay a month
  // later reaches the same verdict as the first run.
  const parsed = parseQueueMessage(raw.body, { now: Temporal.Instant.fromEpochMilliseconds(raw.receivedAt), ...(rules.maxBodyBytes ? { maxBytes: rules.maxBodyBytes } : {}) });
  if (!parsed.ok) {
    return {
      ok: false,
      deadLetter: {
        messageId: raw.messageId, source: raw.source, imei: parsed.imei ?? raw.imei, stage: 'enrich',
        code: parsed.code, reason: parsed.reason, body: raw.body, rejectedAt: now,
      },
    };
  }
  const checkIn = parsed.value;
  const reported = checkIn.device_data.model;
  const model = replaceModel(reported, rules.modelMap);
  return {
    ok: true,
    value: {
      messageId: raw.messageId, source: raw.source, receivedAt: raw.receivedAt,
      checkIn: { ...checkIn, device_data: { ...checkIn.device_data, model } },
      reportedModel: reported,
      device,
      ...enrich(device),
    },
  };
}

/**
 * A test fault's check-in (docs/decisions.md#test-faults) is accepted only when its mark names a test fault
 * started for this very device (`known` holds `id:IMEI`): a marked message from anywhere else would make a
 * real-looking record read as a test, so it is a dead letter instead.
 */
export function checkTestFaultMark(value: EnrichedCheckIn, known: ReadonlySet<string>, body: string, now: number): EnrichOutcome {
  const mark = value.checkIn.test_fault;
  const imei = value.checkIn.device_data.IMEINumber;
  if (!mark || known.has(`${mark.id}:${imei}`)) return { ok: true, value };
  return {
    ok: false,
    deadLetter: {
      messageId: value.messageId, source: value.source, imei, stage: 'enrich', code: 'INVALID',
      reason: `test_fault: test fault ${mark.id} was not started for device ${imei}`, body, rejectedAt: now,
    },
  };
}
