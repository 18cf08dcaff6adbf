// Incident alarms (alarm kinds incident-opened / -located / -restored, domain/alarm-kinds.ts): raised through the
// alarm routing's event entry point in the incident step's transaction, so crews get one message per fault,
// not one per tripped indicator. An alarm belongs to a device; an incident's is the indicator at the upstream
// end of its first section (the first to trip while it is not located). Episode `incident:<id>`: raised once
// per incident and kind; when the incident closes its alarms end, so the next incident at the same indicator
// alarms again.
import type pg from 'pg';
import { INCIDENT_LOCATED, INCIDENT_OPENED, INCIDENT_RESTORED } from '../domain/alarm-kinds.js';
import { endEventAlarms, raiseEventAlarm } from '../alarms/raise.js';
import type { IncidentInfo } from './notifications.js';
import { incidentPayload } from './notifications.js';

const KIND_OF: Readonly<Record<string, string>> = { opened: INCIDENT_OPENED, located: INCIDENT_LOCATED, restored: INCIDENT_RESTORED };

export async function incidentAlarms(client: pg.ClientBase, i: IncidentInfo): Promise<void> {
  const episode = `incident:${i.id}`;
  for (const t of i.timeline) {
    const kind = KIND_OF[t.what];
    if (!kind) continue;
    const p = incidentPayload(i, t.what === 'opened' ? 'opened' : t.what === 'located' ? 'located' : 'restored');
    if (!p.from.imei) continue;
    await raiseEventAlarm(client, {
      OrganizationID: i.organizationId, IMEINumber: p.from.imei, PowerLineID: i.powerLineId, kind, episode,
      detail: { incidentId: i.id, incidentKind: p.kind, status: p.status, section: p.description, firstTripAt: p.firstTripAt },
    }, i.now.getTime());
  }
  if (i.timeline.some((t) => t.what === 'closed')) {
    await endEventAlarms(client, episode, Object.values(KIND_OF), i.now);
  }
}
