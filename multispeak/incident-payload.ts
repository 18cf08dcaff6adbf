// The outbox row's payload of a feeder incident notification (docs/decisions.md#feeder-incidents): its type
// and its reader (the delivery worker builds the envelope from it) here, beside outbox-payload.ts, so MultiSpeak
// depends on no incident code; the incident worker (incidents/notifications.ts) is its writer.
import type { FaultedSection } from '../domain/faulted-section.js';
import type { IncidentState } from '../domain/incident-rules.js';
import { ONGOING_FAULT } from '../domain/ongoing-fault-codes.js';
import type { Notification } from './notification.js';

export type IncidentNotice = 'opened' | 'located' | 'section changed' | 'restored';

/** What one incident notification says (the writer: incidents/notifications.ts incidentPayload). */
export interface IncidentPayload {
  incidentId: number;
  PowerLineID: string;
  notice: IncidentNotice;
  status: IncidentState['status'];
  kind: IncidentState['kind'];
  /** One line naming every faulted section (or the tripped indicators, without topology). */
  description: string;
  sections: FaultedSection[];
  /** The indicator at the upstream end of the first section, else the first to trip. */
  from: { imei: string; name: string | null };
  firstTripAt: string;
  at: string;
}

/**
 * The reader: an incident row as the notification the envelope builders take. The section names the object
 * (objectName, comments), the indicator at its upstream end is the detecting device, an open incident is an
 * Outage / Fault, a restored one a Restoration / Normal.
 */
export function incidentNotification(messageId: string, payload: unknown): Notification {
  const p = (payload ?? {}) as Partial<IncidentPayload>;
  if (typeof p.incidentId !== 'number' || typeof p.description !== 'string' || !p.from || typeof p.at !== 'string' || typeof p.firstTripAt !== 'string') {
    throw new Error('incident payload lacks incidentId, description, from or times');
  }
  const restored = p.notice === 'restored';
  const text = `Incident ${p.incidentId} (${p.kind}, ${restored ? 'restored' : p.status}): ${p.description}`;
  return {
    messageId, kind: 'status', IMEINumber: p.from.imei, name: `Incident ${p.incidentId}: ${p.description}`, date: new Date(p.at).toISOString(),
    fault: restored ? ONGOING_FAULT.NONE : p.kind === 'momentary' ? ONGOING_FAULT.TEMPORARY : ONGOING_FAULT.PERMANENT, faultText: text, previousFault: null,
    averageCurrent1m: null, batteryMCU: null, batteryOrLine: null,
    events: [{ EventType: `Feeder incident ${p.incidentId} ${p.notice ?? ''}`.trim(), EventTimestamp: restored ? p.at : p.firstTripAt }],
    lat: null, long: null,
  };
}
