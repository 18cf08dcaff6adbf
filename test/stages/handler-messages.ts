// Messages as the stages hand them to each other, built from fixture 001 through the real enrich handler, for
// the handler table tests. Pure: no servers.
import { enrichMessage } from '../../stages/enrich/handler.js';
import type { ModelMap } from '../../domain/model-replacement.js';
import type { ComputedCheckIn, DedupedCheckIn, EnrichedCheckIn, PersistedCheckIn, RawMessage } from '../../schemas/avro/values.js';
import type { DeviceEvent } from '../../domain/checkin.js';
import { messageBody } from '../domain/fixtures.js';
import { snapshot } from '../domain/builders.js';

export const MODEL_MAP: ModelMap = new Map([['FI-2000-A', 'FCI-2000']]);
export const RECEIVED_AT = Date.parse('2026-11-20T15:00:00Z');

type Events = Partial<DeviceEvent>[];

/** Fixture 001 with device_data fields and events replaced, as the queue delivers it. */
export function raw(change: { device?: Record<string, unknown>; events?: Events; dm1?: boolean; body?: string } = {}): RawMessage {
  const base = JSON.parse(messageBody('001-plain-checkin.json')) as Record<string, Record<string, unknown>>;
  const body = change.body ?? JSON.stringify({
    ...base, device_data: { ...base.device_data, ...change.device },
    events: change.events ?? [], ...(change.dm1 !== undefined ? { dm1_device: change.dm1 } : {}),
  });
  return { messageId: 'm-1', source: 'sqs', receivedAt: RECEIVED_AT, imei: '861000000000000', body };
}

export function enriched(change: Parameters<typeof raw>[0] = {}, registered = true): EnrichedCheckIn {
  const out = enrichMessage(raw(change), registered ? snapshot() : null, { modelMap: MODEL_MAP }, RECEIVED_AT);
  if (!out.ok) throw new Error(out.deadLetter.reason);
  return out.value;
}

export const deduped = (m: EnrichedCheckIn): DedupedCheckIn => ({ ...m, droppedEvents: 0 });

export function persisted(m: EnrichedCheckIn, over: Partial<ComputedCheckIn & PersistedCheckIn> = {}): PersistedCheckIn {
  return {
    ...deduped(m), ActualOngoingFault: m.checkIn.device_data.Ongoing_fault, ReportedOngoingFault: m.checkIn.device_data.Ongoing_fault,
    shifts: [], alert: null, previousActualOngoingFault: 0, DeviceRecordID: 1, ownsRecord: true,
    storedEventIds: m.checkIn.events.map((e) => e.EventID), ...over,
  };
}

/** A standard event at `hh:mm:ss` on 2026-11-20 UTC. */
export const ev = (EventID: number, time: string, EventType: string, extra: Partial<DeviceEvent> = {}): Partial<DeviceEvent> =>
  ({ EventID, EventTimestamp: `2026-11-20T${time}Z`, EventType, PrefaultCurrent: 100, FaultCurrent: 900, RecoverCurrent: 0, ...extra });
