// Telling the OMS once per incident (docs/decisions.md#feeder-incidents): a MultiSpeak integration with
// notifyPer "incident" gets no per-device fault notifications for devices on a power line (notify skips them)
// but one outbox row when the incident is located (or, on a line without topology, opened), one if the
// section moves while trips still join, and one when it is restored. The rows go through the same outbox and
// delivery worker as every notification; the worker writes them in the transaction that changes the incident.
import type pg from 'pg';
import { describeSection } from '../domain/faulted-section.js';
import type { IncidentState, TimelineEntry } from '../domain/incident-rules.js';
import { enqueue } from '../multispeak/delivery/outbox.js';
import type { IncidentNotice, IncidentPayload } from '../multispeak/incident-payload.js';
import type { IncidentDevice } from './store.js';

export interface IncidentIntegration { id: string; OrganizationID: string; notifyPer: 'device' | 'incident' }

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
  // One lane per incident (the row's device column names the incident): its notifications arrive in order;
  // incidents do not wait for each other.
  await enqueue(client, noticesOf(i).flatMap((notice) => {
    const payload = incidentPayload(i, notice);
    return targets.map((t) => ({ integrationId: t.id, IMEINumber: `incident-${i.id}`, kind: 'incident' as const, dedupKey: `incident:${i.id}:${notice}:${i.now.getTime()}`, payload }));
  }));
}
