// The `recurring-section` alarm (hot spots; docs/decisions.md#hot-spots-and-chattering-alarms), in the
// incident step's transaction: raised when an incident located in a section makes it hold N incidents of the
// last D days (the organisation's rule, domain/recurring-section.ts), ended by the step that finds the count
// below N: the step that writes an incident of its section, or the first step after its stored next end. Raised through the alarm routing's event entry point, so it is routed, acknowledged and shelved like
// every other alarm. Each read is a range of incidents_line_first_trip (one power line, the last D days).
import type pg from 'pg';
import { RECURRING_SECTION } from '../domain/alarm-kinds.js';
import type { FaultedSection } from '../domain/faulted-section.js';
import type { IncidentKind } from '../domain/incident-rules.js';
import {
  countedIn, hotSpotEpisode, nextEndAt, recurringSectionRule, recurringSectionSummary, windowStart, type CountedIncident, type RecurringSectionRule,
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

/** Ends hot-spot alarms, one `cleared` change each. */
async function endHotSpots(client: pg.ClientBase, where: string, params: unknown[], nowDate: Date): Promise<void> {
  await client.query(
    `with ended as (update alarms set cleared_at = $1, next_end_at = null where kind = '${RECURRING_SECTION}' and cleared_at is null and ${where} returning id, cleared_at)
     insert into alarm_changes (alarm_id, change, at) select id, 'cleared', cleared_at from ended order by id on conflict do nothing`,
    [nowDate, ...params]);
}

/**
 * After an incident's step: each of its sections is judged. One that holds raises the alarm (once while it
 * holds) or gives the open one its new count and next end; one that no longer holds (an incident stopped
 * counting) ends its open alarm now, not at its stored next end.
 */
export async function raiseRecurringSections(client: pg.ClientBase, i: LocatedIncident): Promise<void> {
  if (i.sections.length === 0) return;
  const { rule, masked } = await orgRule(client, i.organizationId);
  const now = i.now.getTime();
  const incidents = await lineIncidents(client, i.powerLineId, windowStart(rule, now));
  for (const s of i.sections) {
    const counted = countedIn(incidents, s.from.imei, masked, rule, now);
    const endsAt = nextEndAt(counted, rule);
    if (endsAt === null) {
      await endHotSpots(client, '"IMEINumber" = $2', [s.from.imei], i.now);
      continue;
    }
    const detail = {
      deviceName: s.from.name, section: s.label, sectionFrom: s.from.imei, count: counted.length, days: rule.days, incidentIds: counted.map((c) => c.id),
      firstTripAt: new Date(counted[0]!.firstTripAt).toISOString(), lastTripAt: new Date(counted[counted.length - 1]!.firstTripAt).toISOString(),
      summary: recurringSectionSummary(counted.length, rule, s.label, masked),
    };
    // One alarm per section while it holds: an open one takes the new count (no new raise, nothing routed).
    const { rowCount } = await client.query(
      `update alarms set detail = detail || $3::jsonb, next_end_at = $4 where "IMEINumber" = $1 and kind = $2 and cleared_at is null`,
      [s.from.imei, RECURRING_SECTION, JSON.stringify(detail), new Date(endsAt)]);
    if ((rowCount ?? 0) > 0) continue;
    const id = await raiseEventAlarm(client, {
      OrganizationID: i.organizationId, IMEINumber: s.from.imei, PowerLineID: i.powerLineId, kind: RECURRING_SECTION, episode: hotSpotEpisode(counted), detail,
    }, now);
    if (id !== null) await client.query('update alarms set next_end_at = $2 where id = $1', [id, new Date(endsAt)]);
  }
}

/**
 * Every step: the open recurring-section alarms due to be judged (their stored next end has come, or none is
 * stored: a row from before migration 0030, or its organisation's rule changed) end when their section no longer
 * holds, or store their next end. A range of alarms_hot_spot_due, not every open hot spot.
 */
export async function endRecurringSections(client: pg.ClientBase, nowDate: Date): Promise<void> {
  const { rows: due } = await client.query<{ id: string; OrganizationID: string; PowerLineID: string; sectionFrom: string }>(
    `select id, "OrganizationID", "PowerLineID", "IMEINumber" as "sectionFrom" from alarms
      where kind = $1 and cleared_at is null and (next_end_at is null or next_end_at <= $2)`, [RECURRING_SECTION, nowDate]);
  if (due.length === 0) return;
  const now = nowDate.getTime();
  const rules = new Map<string, OrgRule>();
  const byLine = new Map<string, CountedIncident[]>();
  const ended: number[] = [];
  const later: { id: number; at: Date }[] = [];
  for (const a of due) {
    if (!rules.has(a.OrganizationID)) rules.set(a.OrganizationID, await orgRule(client, a.OrganizationID));
    const { rule, masked } = rules.get(a.OrganizationID)!;
    const key = `${a.PowerLineID}\u0000${rule.days}`;
    if (!byLine.has(key)) byLine.set(key, await lineIncidents(client, a.PowerLineID, windowStart(rule, now)));
    const endsAt = nextEndAt(countedIn(byLine.get(key)!, a.sectionFrom, masked, rule, now), rule);
    if (endsAt === null) ended.push(Number(a.id));
    else later.push({ id: Number(a.id), at: new Date(endsAt) });
  }
  if (ended.length > 0) await endHotSpots(client, 'id = any($2::bigint[])', [ended], nowDate);
  if (later.length > 0) {
    await client.query('update alarms a set next_end_at = u.at from unnest($1::bigint[], $2::timestamptz[]) as u(id, at) where a.id = u.id',
      [later.map((l) => l.id), later.map((l) => l.at)]);
  }
}
