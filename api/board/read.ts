// The board's reads (docs/decisions.md#the-board): the active incidents and the alarms that are not normal, in
// the caller's reach, presented and ordered by the pure rules (domain/board.ts, domain/alarm-states.ts).
import type pg from 'pg';
import { alarmLabel, INCIDENT_ALARM_KINDS, type AlarmClass } from '../../domain/alarm-kinds.js';
import { isChattering } from '../../domain/alarm-chatter.js';
import { alarmClassOf, alarmState, DEFAULT_CHATTER_SHELVE_MAX_MINUTES, mayShelve, shelveMaxMinutes, type AlarmState } from '../../domain/alarm-states.js';
import { alarmPriority, compareBoardItems, incidentPriority, type IncidentStatus } from '../../domain/board.js';
import type { Caller } from '../auth/caller.js';
import { reachCondition } from '../device-records/reach.js';
import { SqlParams } from '../device-records/sql.js';
import type { FaultedSection } from '../../domain/faulted-section.js';
import { visible as incidentVisible } from '../incidents/store.js';
import { sectionPresenter, type ShowSections } from '../incidents/section-reach.js';

/** At most this many alarms are read; a storm beyond it says `truncated` (the newest are kept). */
export const BOARD_ALARM_LIMIT = 1000;

interface AlarmRow {
  id: string; kind: string; label: string | null; class: AlarmClass | null; IMEINumber: string; Real_Name: string | null; PowerLineID: string | null;
  powerLineName: string | null; raised_at: Date; acknowledged_at: Date | null; acknowledged_by: string | null; cleared_at: Date | null; codeText: string | null;
  shelved_until: Date | null; chatter_count: number; last_raised_at: Date | null; summary: string | null;
  episode: string; last_episode: string | null; detail_text: string;
}

const IMEI = /\b\d{14,16}\b/g;
/** What a summary says in place of an indicator outside the caller's reach. */
export const OUTSIDE_REACH_INDICATOR = 'an indicator outside your reach';

/**
 * A summary (a hot spot's section, a possible de-energised section) may name other indicators than the alarm's
 * own: one outside the caller's reach is not named, neither its IMEI nor its name (docs/decisions.md#triage-evidence-within-reach).
 */
async function summariesInReach(db: Pick<pg.Pool, 'query'>, caller: Caller, rows: AlarmRow[]): Promise<void> {
  const named = [...new Set(rows.filter((r) => r.summary).flatMap((r) => r.detail_text.match(IMEI) ?? []))];
  if (named.length === 0) return;
  const p = new SqlParams();
  const { rows: found } = await db.query<{ IMEINumber: string; Real_Name: string | null; in_reach: boolean }>(
    `select d."IMEINumber", d."Real_Name", (${reachCondition(caller, p)}) as in_reach from device_information d where d."IMEINumber" = any(${p.add(named)}::text[])`, p.values);
  const reached = new Set(found.filter((d) => d.in_reach).map((d) => d.IMEINumber));
  const hidden = [...named.filter((imei) => !reached.has(imei)), ...found.filter((d) => !d.in_reach && d.Real_Name).map((d) => d.Real_Name!)];
  for (const r of rows) if (r.summary) for (const h of hidden) r.summary = r.summary.replaceAll(h, OUTSIDE_REACH_INDICATOR);
}

interface IncidentRow {
  id: string; PowerLineID: string; powerLineName: string | null; status: IncidentStatus; kind: string; first_trip_at: Date; opened_at: Date;
  located_at: Date | null; restored_at: Date | null; sections: FaultedSection[];
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

function presentIncident(r: IncidentRow, show: ShowSections) {
  return {
    type: 'incident' as const, id: Number(r.id), priority: incidentPriority(r.status), at: r.opened_at.getTime(), powerLineId: r.PowerLineID,
    powerLineName: r.powerLineName, status: r.status, kind: r.kind, openedAt: r.opened_at.toISOString(), firstTripAt: r.first_trip_at.toISOString(),
    locatedAt: iso(r.located_at), restoredAt: iso(r.restored_at), sections: show(r.sections),
  };
}

function presentAlarm(r: AlarmRow, masked: boolean, nowMs: number, chatterShelveMax: number) {
  const cls = alarmClassOf(r.kind, r.class);
  const state: AlarmState = alarmState({ acknowledgedAt: r.acknowledged_at?.getTime() ?? null, clearedAt: r.cleared_at?.getTime() ?? null, shelvedUntil: r.shelved_until?.getTime() ?? null }, nowMs);
  return {
    type: 'alarm' as const, id: Number(r.id), priority: alarmPriority(r.kind, masked), at: r.raised_at.getTime(), kind: r.kind, label: r.label, class: cls, state,
    IMEINumber: r.IMEINumber, Real_Name: r.Real_Name, powerLineId: r.PowerLineID, powerLineName: r.powerLineName, codeText: r.codeText,
    raisedAt: r.raised_at.toISOString(), acknowledgedAt: iso(r.acknowledged_at), acknowledgedBy: r.acknowledged_by, clearedAt: iso(r.cleared_at),
    shelvable: mayShelve(cls, r.chatter_count),
    // The longest the portal may offer (a chattering operations alarm: ALARM_CHATTER_SHELVE_MAX_MINUTES); null: not shelvable.
    shelveMaxMinutes: shelveMaxMinutes(cls, r.chatter_count, chatterShelveMax),
    // A chattering alarm is one row (domain/alarm-chatter.ts): its episodes, the first raise (raisedAt) and the last;
    // and the device's times of the first and last episode (the raising check-ins' dates).
    episodes: r.chatter_count, lastRaisedAt: (r.last_raised_at ?? r.raised_at).toISOString(),
    firstEpisodeAt: isChattering(r.chatter_count) ? r.episode : null, lastEpisodeAt: isChattering(r.chatter_count) ? r.last_episode : null,
    // What a recurring-section alarm counted (incidents/recurring-section.ts); null for other kinds.
    summary: r.summary,
  };
}

export type BoardAlarm = ReturnType<typeof presentAlarm>;

/** The alarms of the caller's reach that are not normal (incident alarms aside: the incident stands for them). */
export async function readBoardAlarms(db: Pick<pg.Pool, 'query'>, caller: Caller, nowMs: number, chatterShelveMax = DEFAULT_CHATTER_SHELVE_MAX_MINUTES, powerLineId?: string): Promise<{ alarms: BoardAlarm[]; truncated: boolean }> {
  const p = new SqlParams();
  const line = powerLineId === undefined ? 'true' : `a."PowerLineID" = ${p.add(powerLineId)}::text`;
  const reach = reachCondition(caller, p, 'd', 'a.raised_at');
  const { rows } = await db.query<AlarmRow>(
    `select a.id, a.kind, a.detail->>'label' as label, a.class, a."IMEINumber", d."Real_Name", a."PowerLineID", pl.name as "powerLineName", a.raised_at,
            a.acknowledged_at, a.acknowledged_by, a.cleared_at, a.detail->>'codeText' as "codeText", s.until as shelved_until,
            a.chatter_count, a.last_raised_at, a.detail->>'summary' as summary, a.episode, a.last_episode,
            case when a.detail ? 'summary' then a.detail::text else '' end as detail_text
       from alarms a join device_information d on d."IMEINumber" = a."IMEINumber"
       left join power_lines pl on pl."Id" = a."PowerLineID"
       left join alarm_shelves s on s."IMEINumber" = a."IMEINumber" and s.kind = a.kind and s."OrganizationID" = a."OrganizationID" and s.until > ${p.add(new Date(nowMs))}::timestamptz
      where a."OrganizationID" = ${p.add(caller.org)}::text and (a.acknowledged_at is null or a.cleared_at is null)
        and a.kind <> all(${p.add(INCIDENT_ALARM_KINDS)}::text[]) and ${reach} and ${line}
      order by a.raised_at desc, a.id desc limit ${p.add(BOARD_ALARM_LIMIT + 1)}`, p.values);
  const kept = rows.slice(0, BOARD_ALARM_LIMIT);
  await summariesInReach(db, caller, kept);
  return { alarms: kept.map((r) => presentAlarm(r, caller.maskFaultDetails, nowMs, chatterShelveMax)), truncated: rows.length > BOARD_ALARM_LIMIT };
}

async function readActiveIncidents(db: Pick<pg.Pool, 'query'>, caller: Caller) {
  const p = new SqlParams();
  const { rows } = await db.query<IncidentRow>(
    `select i.id, i."PowerLineID", pl.name as "powerLineName", i.status, i.kind, i.first_trip_at, i.opened_at, i.located_at, i.restored_at, i.sections
       from incidents i join power_lines pl on pl."Id" = i."PowerLineID"
      where i.status <> 'closed' and ${incidentVisible(caller, p)}`, p.values);
  const show = await sectionPresenter(db, caller, rows.map((r) => r.sections));
  return rows.map((r) => presentIncident(r, show));
}

async function readShelves(db: Pick<pg.Pool, 'query'>, caller: Caller, nowMs: number) {
  const p = new SqlParams();
  const { rows } = await db.query<{ IMEINumber: string; Real_Name: string | null; kind: string; until: Date; shelved_by: string; shelved_at: Date; alarm_id: string | null }>(
    `select s."IMEINumber", d."Real_Name", s.kind, s.until, s.shelved_by, s.shelved_at,
            (select max(a.id) from alarms a where a."IMEINumber" = s."IMEINumber" and a.kind = s.kind and a."OrganizationID" = s."OrganizationID") as alarm_id
       from alarm_shelves s join device_information d on d."IMEINumber" = s."IMEINumber"
      where s."OrganizationID" = ${p.add(caller.org)}::text and s.until > ${p.add(new Date(nowMs))}::timestamptz and ${reachCondition(caller, p, 'd')}
      order by s.until, s."IMEINumber", s.kind`, p.values);
  return rows.map((r) => ({ IMEINumber: r.IMEINumber, Real_Name: r.Real_Name, kind: r.kind, label: alarmLabel(r.kind), until: r.until.toISOString(), shelvedBy: r.shelved_by, shelvedAt: r.shelved_at.toISOString(),
    alarmId: r.alarm_id === null ? null : Number(r.alarm_id) }));
}

/**
 * The board as one answer: `items` (active incidents, then the unacknowledged alarms: active, or cleared and
 * still unacknowledged) in the board's order; `acknowledged` (acknowledged, still active); `shelved` points.
 * `cls` keeps one alarm class (incidents are operations).
 */
export async function readBoard(db: Pick<pg.Pool, 'query'>, caller: Caller, nowMs: number, cls: AlarmClass | null, chatterShelveMax = DEFAULT_CHATTER_SHELVE_MAX_MINUTES) {
  const [incidents, { alarms, truncated }, shelved] = await Promise.all([readActiveIncidents(db, caller), readBoardAlarms(db, caller, nowMs, chatterShelveMax), readShelves(db, caller, nowMs)]);
  const ofClass = alarms.filter((a) => cls === null || a.class === cls);
  const items = [...(cls === 'maintenance' ? [] : incidents), ...ofClass.filter((a) => a.state === 'unacknowledged-active' || a.state === 'unacknowledged-cleared')].sort(compareBoardItems);
  const acknowledged = ofClass.filter((a) => a.state === 'acknowledged-active').sort(compareBoardItems);
  const unacknowledged = items.filter((i) => i.type === 'alarm').length;
  return {
    counts: { incidents: items.length - unacknowledged, unacknowledged, critical: items.filter((i) => i.priority === 'critical').length, shelved: shelved.length },
    items, acknowledged, shelved, truncated,
  };
}
