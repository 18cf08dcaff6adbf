// The reliability reads (docs/decisions.md#reliability-analytics-issue-43-rel-core): sums of the day tables the
// incident worker keeps (schemas/migrations/0026_reliability_days.sql) over a period and its previous period,
// never a scan of incident history; the rules that rank and compare them are reliability/'s.
import type pg from 'pg';
import type { Caller } from '../auth/caller.js';
import { reachCondition } from '../device-records/reach.js';
import { SqlParams } from '../device-records/sql.js';
import type { FaultedSection } from '../../domain/faulted-section.js';
// What a section whose upstream indicator is outside the caller's reach is called when the import gave it no
// Section (review L2, docs/decisions.md#reliability-reads-paged-and-bounded); numbered here so that each row
// keeps a name of its own.
import { OUTSIDE_REACH_LABEL } from '../../domain/section-reach.js';
import { visible } from '../incidents/store.js';
import { sectionPresenter } from '../incidents/section-reach.js';
import type { Period } from '../../reliability/period.js';
import type { KindCounts } from '../../reliability/ranking.js';

export interface Sums extends KindCounts { trippedIndicators: number; previousIncidents: number }
export interface LineSums extends Sums { powerLineId: string; name: string | null; lengthKm: number | null; customers: number | null }
export interface SectionSums extends Sums {
  powerLineId: string; sectionImei: string; label: string;
  /** The section's upstream indicator, when it is in the caller's reach (its IMEI and position are shown only then). */
  inReach: boolean; lat: number | null; long: number | null; customers: number | null; lengthKm: number | null;
}

/**
 * The power lines the caller may see: an admin's organisation's, a user's those with a device in one of the
 * user's groups (a line is seen whole: the incidents of a shared feeder are its answer, as for incidents).
 */
function linesInReach(caller: Caller, p: SqlParams): string {
  if (caller.role === 'admin') return `select pl."Id" from power_lines pl where pl."OrganizationID" = ${p.add(caller.org)}::text`;
  return `select distinct d."PowerLineID" from device_information d where d."PowerLineID" is not null and ${reachCondition(caller, p)}`;
}

/** The SQL sums of a day table `t` over the period, and the incidents of its previous period. */
function sums(p: SqlParams, now: Period, prev: Period): string {
  const from = p.add(now.from);
  const to = p.add(now.to);
  const cur = `t.day between ${from}::date and ${to}::date`;
  return `coalesce(sum(t.permanent) filter (where ${cur}), 0)::int as permanent, coalesce(sum(t.momentary) filter (where ${cur}), 0)::int as momentary,
          coalesce(sum(t.unknown) filter (where ${cur}), 0)::int as unknown, coalesce(sum(t.tripped_indicators) filter (where ${cur}), 0)::int as "trippedIndicators",
          coalesce(sum(t.permanent + t.momentary + t.unknown) filter (where t.day between ${p.add(prev.from)}::date and ${p.add(prev.to)}::date), 0)::int as "previousIncidents"`;
}

/** Whether the caller may see the power line (unknown and out of reach are one answer). */
export async function lineVisible(pool: pg.Pool, caller: Caller, line: string): Promise<boolean> {
  const p = new SqlParams();
  const { rowCount } = await pool.query(`select 1 from (${linesInReach(caller, p)}) r("Id") where r."Id" = ${p.add(line)}::text`, p.values);
  return (rowCount ?? 0) > 0;
}

/** Every visible line with an incident in the period or the previous one, with its length and customers when imported. */
export async function lineSums(pool: pg.Pool, caller: Caller, now: Period, prev: Period): Promise<LineSums[]> {
  const p = new SqlParams();
  const org = p.add(caller.org);
  const sql = `
    with reach as (${linesInReach(caller, p)}),
    sums as (
      select t."PowerLineID", ${sums(p, now, prev)}
        from reliability_line_days t
       where t."OrganizationID" = ${org}::text and t.day between ${p.add(prev.from)}::date and ${p.add(now.to)}::date
         and t."PowerLineID" in (select * from reach)
       group by 1),
    -- One pass over the organisation's devices for every line's imported length and customers.
    facts as (
      select d."PowerLineID", sum(d."SectionLengthKm") as "lengthKm", sum(d."SectionCustomers")::int as customers
        from device_information d
       where d."OrganizationID" = ${org}::text and d.deleted_at is null and d."PowerLineID" in (select "PowerLineID" from sums)
         and (d."SectionLengthKm" is not null or d."SectionCustomers" is not null)
       group by 1)
    select s.*, pl.name, f."lengthKm", f.customers
      from sums s left join power_lines pl on pl."Id" = s."PowerLineID" left join facts f on f."PowerLineID" = s."PowerLineID"`;
  return (await pool.query<LineSums & { PowerLineID: string }>(sql, p.values)).rows.map((r) => ({ ...r, powerLineId: r.PowerLineID }));
}

/** The sections of the visible lines (or of one) with an incident in the period or the previous one. */
export async function sectionSums(pool: pg.Pool, caller: Caller, now: Period, prev: Period, line: string | null): Promise<SectionSums[]> {
  const p = new SqlParams();
  const org = p.add(caller.org);
  const sql = `
    with reach as (${linesInReach(caller, p)}),
    sums as (
      select t."PowerLineID", t.section_imei, (array_agg(t.label order by t.day desc))[1] as stored_label, ${sums(p, now, prev)}
        from reliability_section_days t
       where t."OrganizationID" = ${org}::text and t.day between ${p.add(prev.from)}::date and ${p.add(now.to)}::date
         and t."PowerLineID" in (select * from reach)${line === null ? '' : ` and t."PowerLineID" = ${p.add(line)}::text`}
       group by 1, 2)
    select s.*, d."IMEINumber" is not null as "inReach", d."Lat" as lat, d."Long" as long, d."SectionCustomers" as customers, d."SectionLengthKm" as "lengthKm",
           -- The label names the upstream indicator ("below <name or IMEI>") unless the import gave a Section:
           -- outside the reach only the imported Section stands (the line is seen whole, its stretches with it).
           case when d."IMEINumber" is not null then s.stored_label
                else coalesce(u."Section", ${p.add(OUTSIDE_REACH_LABEL)}::text || ' ' || row_number() over (partition by d."IMEINumber" is null, u."Section" is null order by s."PowerLineID", s.section_imei)) end as label
      from sums s left join device_information d on d."IMEINumber" = s.section_imei and ${reachCondition(caller, p)}
      left join device_information u on u."IMEINumber" = s.section_imei and u."OrganizationID" = ${org}::text and u.deleted_at is null`;
  return (await pool.query<SectionSums & { PowerLineID: string; section_imei: string }>(sql, p.values)).rows
    .map((r) => ({ ...r, powerLineId: r.PowerLineID, sectionImei: r.section_imei }));
}

export interface LineSection { powerLineId: string; incidents: number; customers: number | null }

/**
 * What the lines list needs of each located section in the period, and no more (no label, no reach join): its
 * line, incidents and imported customers (the line is seen whole, so the whole line's sections count).
 */
export async function lineSectionCounts(pool: pg.Pool, caller: Caller, now: Period): Promise<LineSection[]> {
  const p = new SqlParams();
  const org = p.add(caller.org);
  const { rows } = await pool.query<LineSection>(
    `with reach as (${linesInReach(caller, p)}),
     s as (select t."PowerLineID", t.section_imei, sum(t.permanent + t.momentary + t.unknown)::int as incidents
             from reliability_section_days t
            where t."OrganizationID" = ${org}::text and t.day between ${p.add(now.from)}::date and ${p.add(now.to)}::date
              and t."PowerLineID" in (select * from reach)
            group by 1, 2)
     select s."PowerLineID" as "powerLineId", s.incidents, d."SectionCustomers" as customers
       from s left join device_information d on d."IMEINumber" = s.section_imei and d."OrganizationID" = ${org}::text and d.deleted_at is null
      where s.incidents > 0`,
    p.values,
  );
  return rows;
}

export interface LastIncident { id: number; powerLineId: string; kind: string; status: string; firstTripAt: string; sections: string[]; trippedDevices: number }

/**
 * The statement of the newest incidents of the line (or of every visible line) the caller may see: walked
 * backwards on incidents ("OrganizationID", first_trip_at, id) (migration 0032), it stops after `limit`
 * visible ones instead of sorting the organisation's history (review M6, test/integration/reliability/read-plans.test.ts).
 */
export function lastIncidentsQuery(caller: Caller, line: string | null, limit: number): { text: string; values: unknown[] } {
  const p = new SqlParams();
  const where = [visible(caller, p), `i."PowerLineID" in (${linesInReach(caller, p)})`];
  if (line !== null) where.push(`i."PowerLineID" = ${p.add(line)}::text`);
  const text = `select i.id, i."PowerLineID", i.kind, i.status, i.first_trip_at,
            i.sections,
            (select count(*)::int from incident_devices x join device_information d on d."IMEINumber" = x."IMEINumber"
              where x.incident_id = i.id and ${reachCondition(caller, p, 'd', 'x.tripped_at')}) as devices
       from incidents i where ${where.join(' and ')} order by i.first_trip_at desc, i.id desc limit ${p.add(limit)}::int`;
  return { text, values: p.values };
}

/** The newest incidents of the line (or of every visible line) the caller may see, as GET /api/incidents shows them (tripped indicators in reach, sections naming only indicators in reach). */
export async function lastIncidents(pool: pg.Pool, caller: Caller, line: string | null, limit: number): Promise<LastIncident[]> {
  const q = lastIncidentsQuery(caller, line, limit);
  const { rows } = await pool.query<{ id: string; PowerLineID: string; kind: string; status: string; first_trip_at: Date; sections: FaultedSection[]; devices: number }>(q.text, q.values);
  const show = await sectionPresenter(pool, caller, rows.map((r) => r.sections));
  return rows.map((r) => ({
    id: Number(r.id), powerLineId: r.PowerLineID, kind: r.kind, status: r.status, firstTripAt: r.first_trip_at.toISOString(),
    sections: show(r.sections).map((s) => s.label), trippedDevices: r.devices,
  }));
}
