// The incident worker's SQL: what it reads (fault events waiting in incident_inbox, active incidents, the
// topology and latest check-ins of the power lines concerned) and what it writes. The rules are domain/'s.
import type pg from 'pg';
import type { Phase } from '../domain/feeder-topology.js';
import type { FaultedSection } from '../domain/faulted-section.js';
import type { IncidentKind, IncidentStatus, LatestCheckIn, TimelineEntry } from '../domain/incident-rules.js';
import type { IncidentFacts, ReliabilityDelta } from '../reliability/contribution.js';

export interface InboxTrip {
  imei: string;
  eventType: string;
  at: number;
  organizationId: string;
  powerLineId: string;
}

/** Takes (deletes) up to `limit` waiting fault events; trips of devices without a power line are dropped here. */
export async function takeInbox(client: pg.ClientBase, limit: number): Promise<{ trips: InboxTrip[]; taken: number; oldestStoredAt: Date | null }> {
  const { rows } = await client.query<{ imei: string; type: string; at: Date; stored_at: Date; org: string | null; line: string | null }>(
    `with taken as (
       delete from incident_inbox where ctid in (select ctid from incident_inbox order by stored_at limit $1)
       returning "IMEINumber", "EventType", "EventTimestamp", stored_at)
     select t."IMEINumber" as imei, t."EventType" as type, t."EventTimestamp" as at, t.stored_at,
            d."OrganizationID" as org, d."PowerLineID" as line
       from taken t left join device_information d on d."IMEINumber" = t."IMEINumber" and d.deleted_at is null`,
    [limit],
  );
  const trips = rows.flatMap((r) => (r.org && r.line ? [{ imei: r.imei, eventType: r.type, at: r.at.getTime(), organizationId: r.org, powerLineId: r.line }] : []));
  const oldest = rows.reduce<Date | null>((m, r) => (m === null || r.stored_at < m ? r.stored_at : m), null);
  return { trips, taken: rows.length, oldestStoredAt: oldest };
}

export interface IncidentRow {
  id: number;
  OrganizationID: string;
  PowerLineID: string;
  status: IncidentStatus;
  kind: IncidentKind;
  first_trip_at: Date;
  last_trip_at: Date;
  opened_at: Date;
  located_at: Date | null;
  restored_at: Date | null;
  closed_at: Date | null;
  sections: FaultedSection[];
  /** What this incident last added to the reliability day tables (null: nothing recorded; migration 0026). */
  reliability_applied: IncidentFacts | null;
}

export interface IncidentDevice { imei: string; eventType: string; trippedAt: number }

export async function activeIncidents(client: pg.ClientBase): Promise<(IncidentRow & { devices: IncidentDevice[] })[]> {
  const { rows } = await client.query<IncidentRow & { devices: { imei: string; eventType: string; trippedAt: string }[] }>(
    `select i.*, coalesce((select json_agg(json_build_object('imei', d."IMEINumber", 'eventType', d."EventType", 'trippedAt', d.tripped_at))
                             from incident_devices d where d.incident_id = i.id), '[]') as devices
       from incidents i where i.status <> 'closed' order by i.id`,
  );
  return rows.map((r) => ({ ...r, id: Number(r.id), devices: r.devices.map((d) => ({ imei: d.imei, eventType: d.eventType, trippedAt: Date.parse(d.trippedAt) })) }));
}

export interface LineDevice {
  imei: string;
  name: string | null;
  powerLineId: string;
  upstream: string | null;
  phase: Phase | null;
  section: string | null;
  latest: LatestCheckIn | null;
}

/** Every device of the power lines, with its topology and latest check-in. */
export async function lineDevices(client: pg.ClientBase, lines: readonly string[]): Promise<LineDevice[]> {
  const { rows } = await client.query<{ imei: string; name: string | null; line: string; upstream: string | null; phase: Phase | null; section: string | null; date: Date | null; aof: number | null; expected: number | null }>(
    `select d."IMEINumber" as imei, d."Real_Name" as name, d."PowerLineID" as line, d."UpstreamIMEI" as upstream, d."Phase" as phase,
            d."Section" as section, l."date", l."ActualOngoingFault" as aof, c.expected_interval_s as expected
       from device_information d left join device_latest l on l."IMEINumber" = d."IMEINumber"
       left join checkin_clock c on c."IMEINumber" = d."IMEINumber"
      where d."PowerLineID" = any($1::text[]) and d.deleted_at is null`,
    [lines],
  );
  return rows.map((r) => ({
    imei: r.imei, name: r.name, powerLineId: r.line, upstream: r.upstream, phase: r.phase, section: r.section,
    latest: r.date === null ? null : { date: r.date.getTime(), actualOngoingFault: r.aof ?? 0, expectedS: r.expected },
  }));
}

export async function insertIncident(client: pg.ClientBase, i: { organizationId: string; powerLineId: string; kind: IncidentKind; firstTripAt: number; lastTripAt: number; now: Date }): Promise<number> {
  const { rows } = await client.query<{ id: string }>(
    `insert into incidents ("OrganizationID", "PowerLineID", status, kind, first_trip_at, last_trip_at, opened_at, updated_at)
     values ($1, $2, 'open', $3, $4, $5, $6, $6) returning id`,
    [i.organizationId, i.powerLineId, i.kind, new Date(i.firstTripAt), new Date(i.lastTripAt), i.now],
  );
  return Number(rows[0]!.id);
}

/** A device's trip in an incident: a second trip of the same device keeps the later time (restoration is judged after it). */
export async function addIncidentDevices(client: pg.ClientBase, incidentId: number, devices: readonly IncidentDevice[]): Promise<void> {
  if (devices.length === 0) return;
  await client.query(
    `insert into incident_devices (incident_id, "IMEINumber", "EventType", tripped_at)
     select $1, imei, type, at from unnest($2::text[], $3::text[], $4::timestamptz[]) as t(imei, type, at)
     on conflict (incident_id, "IMEINumber") do update set "EventType" = excluded."EventType", tripped_at = excluded.tripped_at
       where excluded.tripped_at > incident_devices.tripped_at`,
    [incidentId, devices.map((d) => d.imei), devices.map((d) => d.eventType), devices.map((d) => new Date(d.trippedAt))],
  );
}

export async function updateIncident(client: pg.ClientBase, id: number, s: {
  status: IncidentStatus; kind: IncidentKind; sections: FaultedSection[]; firstTripAt: number; lastTripAt: number;
  locatedAt: number | null; restoredAt: number | null; closedAt: number | null; now: Date; reliabilityApplied: IncidentFacts;
}): Promise<void> {
  const at = (ms: number | null) => (ms === null ? null : new Date(ms));
  await client.query(
    `update incidents set status = $2, kind = $3, sections = $4, first_trip_at = $5, last_trip_at = $6, located_at = $7, restored_at = $8,
            closed_at = $9, updated_at = $10, reliability_applied = $11
      where id = $1`,
    [id, s.status, s.kind, JSON.stringify(s.sections), new Date(s.firstTripAt), new Date(s.lastTripAt), at(s.locatedAt), at(s.restoredAt), at(s.closedAt), s.now,
      JSON.stringify(s.reliabilityApplied)],
  );
}

export async function addTimeline(client: pg.ClientBase, incidentId: number, entries: readonly TimelineEntry[], at: Date): Promise<void> {
  if (entries.length === 0) return;
  await client.query(
    `insert into incident_timeline (incident_id, at, what, detail)
     select $1, $2, what, detail from unnest($3::text[], $4::jsonb[]) with ordinality as t(what, detail, n) order by n`,
    [incidentId, at, entries.map((e) => e.what), entries.map((e) => JSON.stringify(e.detail))],
  );
}

/**
 * Adds an incident's change of contribution to the reliability day tables (reliability/contribution.ts), in
 * the step's transaction; rows whose counts all reach zero are deleted (migration 0026). An existing row is
 * updated and a new one inserted, rather than INSERT ... ON CONFLICT: that would check the tables' "never below
 * zero" constraints on the proposed row (a subtraction) before finding the row it adds to. The step's advisory
 * lock makes it the only writer.
 */
export async function applyReliabilityDelta(client: pg.ClientBase, d: ReliabilityDelta): Promise<void> {
  const counts = ['permanent', 'momentary', 'unknown', 'tripped_indicators'];
  const add = counts.map((c) => `${c} = t.${c} + d.${c}`).join(', ');
  const zero = counts.map((c) => `t.${c} = 0`).join(' and ');
  const values = (rows: readonly { permanent: number; momentary: number; unknown: number; trippedIndicators: number }[]) =>
    [rows.map((x) => x.permanent), rows.map((x) => x.momentary), rows.map((x) => x.unknown), rows.map((x) => x.trippedIndicators)];
  if (d.lines.length > 0) {
    const r = d.lines;
    const key = 't."OrganizationID" = d.org and t."PowerLineID" = d.line and t.day = d.day';
    await client.query(
      `with d as (select * from unnest($1::text[], $2::text[], $3::date[], $4::int[], $5::int[], $6::int[], $7::int[])
                    as d(org, line, day, permanent, momentary, unknown, tripped_indicators)),
            updated as (update reliability_line_days t set ${add} from d where ${key} returning t."OrganizationID", t."PowerLineID", t.day)
       insert into reliability_line_days ("OrganizationID", "PowerLineID", day, permanent, momentary, unknown, tripped_indicators)
       select * from d where not exists (select 1 from updated t where ${key})`,
      [r.map((x) => x.organizationId), r.map((x) => x.powerLineId), r.map((x) => x.day), ...values(r)],
    );
    await client.query(
      `delete from reliability_line_days t using unnest($1::text[], $2::text[], $3::date[]) as d(org, line, day) where ${key} and ${zero}`,
      [r.map((x) => x.organizationId), r.map((x) => x.powerLineId), r.map((x) => x.day)],
    );
  }
  if (d.sections.length > 0) {
    const r = d.sections;
    const key = 't."OrganizationID" = d.org and t."PowerLineID" = d.line and t.day = d.day and t.section_imei = d.section';
    await client.query(
      `with d as (select * from unnest($1::text[], $2::text[], $3::text[], $4::date[], $5::text[], $6::int[], $7::int[], $8::int[], $9::int[])
                    as d(org, line, section, day, label, permanent, momentary, unknown, tripped_indicators)),
            updated as (update reliability_section_days t set label = d.label, ${add} from d where ${key}
                        returning t."OrganizationID", t."PowerLineID", t.day, t.section_imei)
       insert into reliability_section_days ("OrganizationID", "PowerLineID", section_imei, day, label, permanent, momentary, unknown, tripped_indicators)
       select * from d where not exists (select 1 from updated t where ${key})`,
      [r.map((x) => x.organizationId), r.map((x) => x.powerLineId), r.map((x) => x.sectionImei), r.map((x) => x.day), r.map((x) => x.label), ...values(r)],
    );
    await client.query(
      `delete from reliability_section_days t using unnest($1::text[], $2::text[], $3::text[], $4::date[]) as d(org, line, section, day) where ${key} and ${zero}`,
      [r.map((x) => x.organizationId), r.map((x) => x.powerLineId), r.map((x) => x.sectionImei), r.map((x) => x.day)],
    );
  }
}
