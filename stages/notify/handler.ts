// notify, the pure part (spec 6.1 steps 11 and 12, 6.2; docs/decisions.md#dnp3-json-output and
// #multispeak-notifications): what a stored check-in sends, to the device's DNP3 topic and into the MultiSpeak outbox.
// The sending of outbox rows to the customer's OMS is the delivery worker's job, not this stage's.
import { buildDeviceRecord, type DeviceRecord } from '../../domain/device-record.js';
import { dnp3Delivery, type Dnp3Output } from '../../domain/dnp3-output.js';
import { eventTable, type EventRecord } from '../../domain/event-record.js';
import { isFaultEventType } from '../../domain/fault-events.js';
import { shiftedTimestamps } from '../../domain/fault-shift.js';
import type { MultiSpeakSettings } from '../../multispeak/integration.js';
import type { NewOutboxRow } from '../../multispeak/delivery/outbox.js';
import { CHECKIN_OPERATION } from '../../multispeak/operations.js';
import { outboxPayload } from '../../multispeak/outbox-payload.js';
import type { PersistedCheckIn } from '../../schemas/avro/values.js';
import { isReread } from '../../plumbing/sources.js';


/** What notify reads of a MultiSpeak integration (multispeak/integration.ts applies the defaults). */
export type MultiSpeakIntegration = Pick<MultiSpeakSettings, 'id' | 'OrganizationID' | 'operation' | 'checkins'> & Partial<Pick<MultiSpeakSettings, 'notifyPer'>>;

/** The rows notify writes: a check-in or a status change (the incident worker writes the third kind). */
export type OutboxRow = Extract<NewOutboxRow, { kind: 'checkin' | 'status' }>;

export interface Notifications {
  dnp3: { address: string; payload: Dnp3Output } | null;
  outbox: OutboxRow[];
}

/** The stored record and the events this message stored, with their final timestamps. */
export function storedView(m: PersistedCheckIn): { record: DeviceRecord; events: EventRecord[] } {
  const d = m.checkIn.device_data;
  const record = buildDeviceRecord({
    device: d, model: d.model, enrichment: { CurrentName: m.CurrentName, CurrentLat: m.CurrentLat, CurrentLong: m.CurrentLong }, actualOngoingFault: m.ActualOngoingFault,
  });
  const stored = new Set(m.storedEventIds);
  const table = eventTable(m.checkIn.dm1_device);
  const events = m.checkIn.events.filter((e) => stored.has(e.EventID)).map((e): EventRecord => ({
    ...e, table, IMEINumber: d.IMEINumber, PacketTimestamp: d.date, ...shiftedTimestamps(e, m.shifts),
  }));
  return { record, events };
}

export function notificationsFor(m: PersistedCheckIn, integrations: readonly MultiSpeakIntegration[]): Notifications {
  // Only the message that stored the record speaks for it; a replay or reprocess says nothing.
  if (!m.ownsRecord || isReread(m.source) || m.device === null) return { dnp3: null, outbox: [] };
  const { record, events } = storedView(m);
  const dnp3 = dnp3Delivery(m.device, record, events, true);
  const imei = record.IMEINumber;
  const faultEvents = events.filter((e) => isFaultEventType(e.EventType));
  const statusChanged = m.previousActualOngoingFault === null ? m.ActualOngoingFault !== 0 : m.previousActualOngoingFault !== m.ActualOngoingFault;
  const outbox: OutboxRow[] = [];
  for (const integration of integrations) {
    if (integration.OrganizationID !== m.device.OrganizationID) continue;
    if (integration.operation === CHECKIN_OPERATION && integration.checkins) {
      outbox.push({ integrationId: integration.id, IMEINumber: imei, kind: 'checkin', dedupKey: `checkin:${imei}:${record.date}`, payload: outboxPayload(record, m.previousActualOngoingFault, undefined, m.checkIn.test_fault) });
    }
    // notifyPer "incident": the incident worker speaks for devices on a power line (incidents/notifications.ts).
    const byIncident = integration.notifyPer === 'incident' && Boolean(m.device.PowerLineID) && !('test_fault' in m.checkIn && m.checkIn.test_fault);
    if ((statusChanged || faultEvents.length > 0) && !byIncident) {
      outbox.push({ integrationId: integration.id, IMEINumber: imei, kind: 'status', dedupKey: `status:${imei}:${record.date}`, payload: outboxPayload(record, m.previousActualOngoingFault, faultEvents, m.checkIn.test_fault) });
    }
  }
  return { dnp3, outbox };
}
