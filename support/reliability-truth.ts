// The independent computation of reliability counts (issue 43) from the raw incidents and incident_devices
// tables alone: not the day tables, not the API's code. The test (test/integration/reliability/api.test.ts)
// and the bench (bench/reliability.bench.ts) compare GET /api/reliability/lines and /sections with it.
import type pg from 'pg';

// The independent computation, from incidents and incident_devices alone (not the day tables, not the API's code).
export const INCIDENTS_BY_DAY = `
  select i.id, i."OrganizationID" as org, i."PowerLineID" as line, i.kind, (i.first_trip_at at time zone 'UTC')::date as day, i.sections,
         (select count(*)::int from incident_devices x where x.incident_id = i.id) as tripped
    from incidents i`;

export interface Expected { permanent: number; momentary: number; unknown: number; incidents: number; trippedIndicators: number; previousIncidents: number }

export async function expectedLines(pool: pg.Pool, org: string, from: string, to: string, pfrom: string, pto: string): Promise<Map<string, Expected & { sections: number; repeatingSections: number }>> {
  const { rows } = await pool.query<Expected & { line: string; sections: number; repeatingSections: number }>(
    `with i as (${INCIDENTS_BY_DAY} where i."OrganizationID" = $1),
     s as (select distinct i.id, i.line, sec->'from'->>'imei' as section from i cross join lateral jsonb_array_elements(i.sections) sec where i.day between $2 and $3),
     sc as (select line, section, count(*) as n from s group by 1, 2)
     select line,
            count(*) filter (where kind = 'permanent' and day between $2 and $3)::int as permanent,
            count(*) filter (where kind = 'momentary' and day between $2 and $3)::int as momentary,
            count(*) filter (where kind = 'unknown' and day between $2 and $3)::int as unknown,
            count(*) filter (where day between $2 and $3)::int as incidents,
            coalesce(sum(tripped) filter (where day between $2 and $3), 0)::int as "trippedIndicators",
            count(*) filter (where day between $4 and $5)::int as "previousIncidents",
            (select count(*)::int from sc where sc.line = i.line) as sections,
            (select count(*)::int from sc where sc.line = i.line and n >= 2) as "repeatingSections"
       from i where day between $4 and $3 group by line`,
    [org, from, to, pfrom, pto],
  );
  return new Map(rows.map((r) => [r.line, r]));
}

export async function expectedSections(pool: pg.Pool, org: string, line: string, from: string, to: string, pfrom: string, pto: string): Promise<Map<string, Expected>> {
  const { rows } = await pool.query<Expected & { section: string }>(
    `with i as (${INCIDENTS_BY_DAY} where i."OrganizationID" = $1 and i."PowerLineID" = $2),
     s as (select distinct on (i.id, sec->'from'->>'imei') i.*, sec->'from'->>'imei' as section from i cross join lateral jsonb_array_elements(i.sections) sec)
     select section,
            count(*) filter (where kind = 'permanent' and day between $3 and $4)::int as permanent,
            count(*) filter (where kind = 'momentary' and day between $3 and $4)::int as momentary,
            count(*) filter (where kind = 'unknown' and day between $3 and $4)::int as unknown,
            count(*) filter (where day between $3 and $4)::int as incidents,
            coalesce(sum(tripped) filter (where day between $3 and $4), 0)::int as "trippedIndicators",
            count(*) filter (where day between $5 and $6)::int as "previousIncidents"
       from s where day between $5 and $4 group by section`,
    [org, line, from, to, pfrom, pto],
  );
  return new Map(rows.map((r) => [r.section, r]));
}

