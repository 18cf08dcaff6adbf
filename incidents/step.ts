// One step of the incident worker, in one transaction (docs/decisions.md#feeder-incidents): take the fault
// events persist left in incident_inbox, join them to incidents of their power line, advance every active
// incident (located, restored, closed) and write what that tells the OMS, all or nothing. A transaction-level
// advisory lock makes the step single-writer across processes: a second worker skips the step instead of
// waiting, and the first one's commit is what the next step reads. So each fault event joins exactly one
// incident once, however many pipeline or worker processes run.
import type pg from 'pg';
import { faultedSections, type FeederDevice } from '../domain/faulted-section.js';
import {
  advanceIncident, assignTrips, currentBack, deviceHealth, incidentKind, type IncidentState, type TimelineEntry, type Trip,
} from '../domain/incident-rules.js';
import { incidentAlarms } from './alarms.js';
import { incidentOutboxRows, type IncidentIntegration } from './notifications.js';
import { endRecurringSections, raiseRecurringSections } from './recurring-section.js';

import { reliabilityDelta, type IncidentFacts } from '../reliability/contribution.js';
import {
  activeIncidents, addIncidentDevices, addTimeline, applyReliabilityDelta, insertIncident, lineDevices, takeInbox, updateIncident,
  type IncidentDevice, type IncidentRow, type InboxTrip, type LineDevice,
} from './store.js';
import type { ClockLimits } from '../domain/checkin-clock.js';
import { recordIndicatorEvidence } from '../indicator-audit/record.js';

/** pg_try_advisory_xact_lock key of the incident step ("finc"). */
export const INCIDENT_LOCK = 0x66696e63;

export interface StepOptions {
  windowMs: number;
  /** When a silent indicator counts as offline: the communication-lost rule's floor and ceiling. */
  clockLimits: ClockLimits;
  /** Fault events taken per step (a storm is worked through in several steps). */
  batch: number;
  now: Date;
  integrations: readonly IncidentIntegration[];
}

/** What changed, for hooks that run after the commit (alarm rules) and for metrics. */
export interface IncidentChange {
  id: number;
  organizationId: string;
  powerLineId: string;
  timeline: TimelineEntry[];
  status: IncidentState['status'];
}

export interface StepResult { locked: boolean; taken: number; changes: IncidentChange[] }

function feederOf(devices: readonly LineDevice[], now: number, limits: ClockLimits): FeederDevice[] {
  return devices.flatMap((d) => (d.phase === null ? [] : [{
    imei: d.imei, name: d.name, upstream: d.upstream, phase: d.phase, section: d.section, health: deviceHealth(d.latest, now, limits),
  }]));
}

export async function incidentStep(client: pg.ClientBase, o: StepOptions): Promise<StepResult> {
  const { rows: [lock] } = await client.query<{ ok: boolean }>('select pg_try_advisory_xact_lock($1) as ok', [INCIDENT_LOCK]);
  if (!lock?.ok) return { locked: false, taken: 0, changes: [] };
  const now = o.now.getTime();
  const { trips, taken } = await takeInbox(client, o.batch);
  // Hot spots end by time as well as by incidents: judged every step (docs/decisions.md#hot-spots-and-chattering-alarms).
  await endRecurringSections(client, o.now);
  const active = await activeIncidents(client);
  if (trips.length === 0 && active.length === 0) return { locked: true, taken, changes: [] };

  const lines = [...new Set([...trips.map((t) => t.powerLineId), ...active.map((a) => a.PowerLineID)])];
  const devicesByLine = new Map<string, LineDevice[]>();
  for (const d of await lineDevices(client, lines)) devicesByLine.set(d.powerLineId, [...(devicesByLine.get(d.powerLineId) ?? []), d]);
  const tripsByLine = new Map<string, InboxTrip[]>();
  for (const t of trips) tripsByLine.set(t.powerLineId, [...(tripsByLine.get(t.powerLineId) ?? []), t]);

  type Work = { row: (IncidentRow & { devices: IncidentDevice[] }) | null; org: string; line: string; devices: Map<string, IncidentDevice>; joined: Trip[]; first: number; last: number };
  const work: Work[] = [];
  for (const line of lines) {
    const mine = active.filter((a) => a.PowerLineID === line);
    const lineTrips = tripsByLine.get(line) ?? [];
    const groups = assignTrips(mine.map((a) => ({ key: a, firstTripAt: a.first_trip_at.getTime(), lastTripAt: a.last_trip_at.getTime() })), lineTrips, o.windowMs);
    const org = lineTrips[0]?.organizationId ?? mine[0]!.OrganizationID;
    for (const a of mine) {
      const g = groups.find((x) => x.key === a);
      work.push({ row: a, org, line, devices: new Map(a.devices.map((d) => [d.imei, d])), joined: g?.trips ?? [], first: g?.firstTripAt ?? a.first_trip_at.getTime(), last: g?.lastTripAt ?? a.last_trip_at.getTime() });
    }
    for (const g of groups.filter((x) => x.key === null)) work.push({ row: null, org, line, devices: new Map(), joined: g.trips, first: g.firstTripAt, last: g.lastTripAt });
  }

  const changes: IncidentChange[] = [];
  for (const w of work) {
    for (const t of w.joined) {
      const had = w.devices.get(t.imei);
      if (!had || t.at > had.trippedAt) w.devices.set(t.imei, { imei: t.imei, eventType: t.eventType, trippedAt: t.at });
    }
    const lineDevs = devicesByLine.get(w.line) ?? [];
    const latest = new Map(lineDevs.map((d) => [d.imei, d.latest]));
    const kind = incidentKind([...w.devices.values()].map((d) => d.eventType));
    const timeline: TimelineEntry[] = [];
    let id: number;
    let prev: IncidentState;
    if (w.row === null) {
      id = await insertIncident(client, { organizationId: w.org, powerLineId: w.line, kind, firstTripAt: w.first, lastTripAt: w.last, now: o.now });
      prev = { status: 'open', kind, sections: [], locatedAt: null, restoredAt: null, closedAt: null };
      timeline.push({ what: 'opened', detail: { firstTripAt: new Date(w.first).toISOString(), trips: w.joined.map(tripDetail) } });
    } else {
      id = w.row.id;
      const at = (d: Date | null) => d?.getTime() ?? null;
      prev = { status: w.row.status, kind: w.row.kind, sections: w.row.sections, locatedAt: at(w.row.located_at), restoredAt: at(w.row.restored_at), closedAt: at(w.row.closed_at) };
      if (w.joined.length > 0) timeline.push({ what: 'joined', detail: { trips: w.joined.map(tripDetail) } });
    }
    if (w.joined.length > 0) await addIncidentDevices(client, id, w.joined.map((t) => w.devices.get(t.imei)!).filter((d, i, all) => all.indexOf(d) === i));
    const sections = faultedSections(feederOf(lineDevs, now, o.clockLimits), new Set(w.devices.keys()));
    const restored = [...w.devices.values()].every((d) => currentBack(d.trippedAt, latest.get(d.imei) ?? null));
    const step = advanceIncident(prev, { kind, sections, restored, joined: w.joined.length, now, windowMs: o.windowMs });
    timeline.push(...step.timeline);
    if (timeline.length === 0) continue;
    const s = step.state;
    // The reliability day tables move with the incident, in this transaction (reliability/contribution.ts): the
    // contribution this worker applied before (kept on the row) comes out, the new one goes in. A row without one
    // (opened by a release before the day tables) had nothing applied but what migration 0026 back-filled and recorded.
    const after: IncidentFacts = {
      organizationId: w.org, powerLineId: w.line, kind: s.kind, firstTripAt: w.first, trippedIndicators: w.devices.size,
      sections: s.sections.map((x) => ({ from: { imei: x.from.imei }, label: x.label })),
    };
    await updateIncident(client, id, { ...s, firstTripAt: w.first, lastTripAt: w.last, now: o.now, reliabilityApplied: after });
    await applyReliabilityDelta(client, reliabilityDelta(w.row?.reliability_applied ?? null, after));
    await addTimeline(client, id, timeline, o.now);
    const hasTopology = lineDevs.some((d) => d.phase !== null);
    const info = {
      id, organizationId: w.org, powerLineId: w.line, state: s, timeline, hasTopology, devices: [...w.devices.values()],
      names: new Map(lineDevs.map((d) => [d.imei, d.name])), firstTripAt: w.first, now: o.now,
    };
    await incidentOutboxRows(client, o.integrations, info);
    await incidentAlarms(client, info);
    await raiseRecurringSections(client, { organizationId: w.org, powerLineId: w.line, sections: s.sections, now: o.now });
    // A closed incident is evidence about every indicator of its line (docs/decisions.md#indicator-audit).
    if (s.status === 'closed') {
      await recordIndicatorEvidence(client, {
        id, organizationId: w.org, powerLineId: w.line, kind: s.kind, located: s.locatedAt !== null && s.sections.length > 0, tripped: [...w.devices.keys()],
        firstTripAt: w.first, lastTripAt: w.last, lineDevices: lineDevs, now: o.now, clockLimits: o.clockLimits,
      });
    }
    changes.push({ id, organizationId: w.org, powerLineId: w.line, timeline, status: s.status });
  }
  return { locked: true, taken, changes };
}

const tripDetail = (t: Trip) => ({ imei: t.imei, eventType: t.eventType, at: new Date(t.at).toISOString() });
