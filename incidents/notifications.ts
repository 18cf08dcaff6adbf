// Telling the OMS once per incident (docs/decisions.md#feeder-incidents): a MultiSpeak integration with
// notifyPer "incident" gets no per-device fault notifications for devices on a power line (notify skips them)
// but one outbox row when the incident is located (or, on a line without topology, opened), one if the
// section moves while trips still join, and one when it is restored. The rows go through the same outbox and
// delivery worker as every notification; the worker writes them in the transaction that changes the incident.
import type pg from 'pg';
import { describeSection, type FaultedSection } from '../domain/faulted-section.js';
import type { IncidentState, TimelineEntry } from '../domain/incident-rules.js';
import type { Notification } from '../multispeak/notification.js';
import type { IncidentDevice } from './store.js';

export interface IncidentIntegration { id: string; OrganizationID: string; notifyPer: 'device' | 'incident' }

export type IncidentNotice = 'opened' | 'located' | 'section changed' | 'restored';

/** The outbox row's payload of an incident notification: its writer and reader side by side. */
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

export interface IncidentInfo {
  id: number;
  organizationId: string;
  powerLineId: string;
  state: IncidentState;
  timeline: readonly TimelineEntry[];
  hasTopology: boolean;
  devices: readonly IncidentDevice[];
  names: ReadonlyMap<string, string | null>;
  firstTripAt: number;
  now: Date;
}

function noticesOf(i: IncidentInfo): IncidentNotice[] {
  const whats = new Set(i.timeline.map((t) => t.what));
  const out: IncidentNotice[] = [];
  if (whats.has('located')) out.push('located');
  else if (whats.has('opened') && !i.hasTopology) out.push('opened');
  else if (whats.has('section changed') && i.state.sections.length > 0) out.push('section changed');
  if (whats.has('restored')) out.push('restored');
  return out;
}

export function incidentPayload(i: IncidentInfo, notice: IncidentNotice): IncidentPayload {
  const first = [...i.devices].sort((a, b) => a.trippedAt - b.trippedAt)[0];
  const from = i.state.sections[0]?.from ?? { imei: first?.imei ?? '', name: first ? i.names.get(first.imei) ?? null : null };
  const description = i.state.sections.length > 0
    ? i.state.sections.map(describeSection).join('; ')
    : `power line ${i.powerLineId}: section unknown (no feeder topology); tripped ${i.devices.map((d) => i.names.get(d.imei) ?? d.imei).join(', ')}`;
  return {
    incidentId: i.id, PowerLineID: i.powerLineId, notice, status: i.state.status, kind: i.state.kind, description, sections: i.state.sections, from,
    firstTripAt: new Date(i.firstTripAt).toISOString(), at: i.now.toISOString(),
  };
}

/** Writes the incident's notifications for every incident-mode integration of its organisation. */
export async function incidentOutboxRows(client: pg.ClientBase, integrations: readonly IncidentIntegration[], i: IncidentInfo): Promise<void> {
  const targets = integrations.filter((x) => x.notifyPer === 'incident' && x.OrganizationID === i.organizationId);
  if (targets.length === 0) return;
  for (const notice of noticesOf(i)) {
    const payload = incidentPayload(i, notice);
    await client.query(
      `insert into outbox (integration_id, "IMEINumber", kind, dedup_key, payload)
       select id, $2, 'incident', $3, $4 from unnest($1::text[]) as t(id) on conflict (integration_id, dedup_key) do nothing`,
      // One lane per incident: its notifications arrive in order; incidents do not wait for each other.
      [targets.map((t) => t.id), `incident-${i.id}`, `incident:${i.id}:${notice}:${i.now.getTime()}`, JSON.stringify(payload)],
    );
  }
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
    fault: restored ? 0 : p.kind === 'momentary' ? 2 : 4, faultText: text, previousFault: null,
    averageCurrent1m: null, batteryMCU: null, batteryOrLine: null,
    events: [{ EventType: `Feeder incident ${p.incidentId} ${p.notice ?? ''}`.trim(), EventTimestamp: restored ? p.at : p.firstTripAt }],
    lat: null, long: null,
  };
}
