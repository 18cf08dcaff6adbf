// The `recurring-section` alarm (hot spots; docs/decisions.md#hot-spots-and-chattering-alarms), in the
// incident step's transaction: raised when an incident located in a section makes it hold N incidents of the
// last D days (the organisation's rule, domain/recurring-section.ts), ended by the step that finds the count
// below N. Raised through the alarm routing's event entry point, so it is routed, acknowledged and shelved like
// every other alarm. Each read is a range of incidents_line_first_trip (one power line, the last D days).
import type pg from 'pg';
import { RECURRING_SECTION } from '../domain/alarm-kinds.js';
import type { FaultedSection } from '../domain/faulted-section.js';
import type { IncidentKind } from '../domain/incident-rules.js';
import {
  countedIn, holds, recurringSectionRule, recurringSectionSummary, windowStart, type CountedIncident, type RecurringSectionRule,
} from '../domain/recurring-section.js';
import { raiseEventAlarm } from '../alarms/raise.js';

interface OrgRule { rule: RecurringSectionRule; masked: boolean }

async function orgRule(client: pg.ClientBase, org: string): Promise<OrgRule> {
  const { rows: [o] } = await client.query<{ masked: boolean; n: number | null; d: number | null }>(
    `select "MaskFaultDetails" as masked, "RecurringSectionIncidents" as n, "RecurringSectionDays" as d from organizations where "OrganizationID" = $1`, [org]);
  return { rule: recurringSectionRule(o?.n ?? null, o?.d ?? null), masked: o?.masked ?? false };
}

/** The incidents of one power line whose first trip (device time) is after `since`: an index range. */
async function lineIncidents(client: pg.ClientBase, line: string, since: number): Promise<CountedIncident[]> {
  const { rows } = await client.query<{ id: string; kind: IncidentKind; first_trip_at: Date; sections: FaultedSection[] }>(
    `select id, kind, first_trip_at, sections from incidents where "PowerLineID" = $1 and first_trip_at > $2`, [line, new Date(since)]);
  return rows.map((r) => ({ id: Number(r.id), kind: r.kind, firstTripAt: r.first_trip_at.getTime(), sections: r.sections }));
}

export interface LocatedIncident { organizationId: string; powerLineId: string; sections: readonly FaultedSection[]; now: Date }

/** After an incident's step: each of its sections that now holds raises the alarm (once while it holds). */
export async function raiseRecurringSections(client: pg.ClientBase, i: LocatedIncident): Promise<void> {
  if (i.sections.length === 0) return;
  const { rule, masked } = await orgRule(client, i.organizationId);
  const now = i.now.getTime();
  const incidents = await lineIncidents(client, i.powerLineId, windowStart(rule, now));
  for (const s of i.sections) {
    const counted = countedIn(incidents, s.from.imei, masked, rule, now);
    if (!holds(counted, rule)) continue;
    const newest = counted[counted.length - 1]!;
    const detail = {
      deviceName: s.from.name, section: s.label, sectionFrom: s.from.imei, count: counted.length, days: rule.days, incidentIds: counted.map((c) => c.id),
      firstTripAt: new Date(counted[0]!.firstTripAt).toISOString(), lastTripAt: new Date(newest.firstTripAt).toISOString(),
      summary: recurringSectionSummary(counted.length, rule, s.label, masked),
    };
    // One alarm per section while it holds: an open one takes the new count (no new raise, nothing routed).
    const { rowCount } = await client.query(
      `update alarms set detail = detail || $3::jsonb where "IMEINumber" = $1 and kind = $2 and cleared_at is null`, [s.from.imei, RECURRING_SECTION, JSON.stringify(detail)]);
    if ((rowCount ?? 0) > 0) continue;
    // The episode names the incident that made it hold, so a later window raises anew.
    await raiseEventAlarm(client, {
      OrganizationID: i.organizationId, IMEINumber: s.from.imei, PowerLineID: i.powerLineId, kind: RECURRING_SECTION, episode: `recurring-section:${newest.id}`, detail,
    }, now);
  }
}

/** Every step: the active recurring-section alarms whose section no longer holds end (one `cleared` change each). */
export async function endRecurringSections(client: pg.ClientBase, nowDate: Date): Promise<void> {
  const { rows: active } = await client.query<{ id: string; OrganizationID: string; PowerLineID: string; sectionFrom: string }>(
    `select id, "OrganizationID", "PowerLineID", "IMEINumber" as "sectionFrom" from alarms where kind = $1 and cleared_at is null`, [RECURRING_SECTION]);
  if (active.length === 0) return;
  const now = nowDate.getTime();
  const rules = new Map<string, OrgRule>();
  const byLine = new Map<string, CountedIncident[]>();
  const ended: number[] = [];
  for (const a of active) {
    if (!rules.has(a.OrganizationID)) rules.set(a.OrganizationID, await orgRule(client, a.OrganizationID));
    const { rule, masked } = rules.get(a.OrganizationID)!;
    const key = `${a.PowerLineID}\u0000${rule.days}`;
    if (!byLine.has(key)) byLine.set(key, await lineIncidents(client, a.PowerLineID, windowStart(rule, now)));
    if (!holds(countedIn(byLine.get(key)!, a.sectionFrom, masked, rule, now), rule)) ended.push(Number(a.id));
  }
  if (ended.length === 0) return;
  await client.query(
    `with ended as (update alarms set cleared_at = $2 where id = any($1::bigint[]) and cleared_at is null returning id, cleared_at)
     insert into alarm_changes (alarm_id, change, at) select id, 'cleared', cleared_at from ended order by id on conflict do nothing`,
    [ended, nowDate]);
}
