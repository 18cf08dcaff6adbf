// The SQL of GET /api/indicator-audit/findings (routes.ts): the organisation's findings of devices in the
// caller's reach, from each device's joining it on, with their evidence when the caller may read it.
import type pg from 'pg';
import type { FindingRow } from '../../indicator-audit/store.js';
import type { Caller } from '../auth/caller.js';
import { reachCondition } from '../device-records/reach.js';
import { SqlParams } from '../device-records/sql.js';

/** A row of the list; evidence and tally only for a caller who is not masked (EVIDENCE_COLUMNS). */
export type Listed = FindingRow & { name: string | null; phase: string | null; powerLineName: string | null; evidence?: { incidentId: string; verdict: string; otherPhase: boolean; firstTripAt: string | null }[]; tally?: Record<string, number> };

/**
 * The evidence: the finding's contradicting incidents with what each said; the tally: the indicator's evidence per
 * verdict. Both the finding's organisation's only, recorded since the device joined it. Not computed for a masked
 * caller, who reads neither (present).
 */
const EVIDENCE_COLUMNS = `,
  coalesce((select json_agg(json_build_object('incidentId', e.incident_id, 'verdict', e.verdict, 'otherPhase', e.other_phase, 'firstTripAt', i.first_trip_at) order by e.seq)
              from indicator_evidence e join incidents i on i.id = e.incident_id and i."OrganizationID" = f."OrganizationID"
             where e."OrganizationID" = f."OrganizationID" and e."IMEINumber" = f."IMEINumber" and e.recorded_at >= d."OrganizationSince"
               and e.incident_id = any(f.incidents)), '[]') as evidence,
  coalesce((select json_object_agg(v.verdict, v.n) from (select e.verdict, count(*)::int as n from indicator_evidence e
              where e."OrganizationID" = f."OrganizationID" and e."IMEINumber" = f."IMEINumber" and e.recorded_at >= d."OrganizationSince"
              group by e.verdict) v), '{}') as tally`;

/** The newest 500 findings in `state` ('open', 'dismissed', 'all'), of one power line when given. */
export async function readFindings(pool: pg.Pool, caller: Caller, { state, line, withEvidence }: { state: string; line: string | undefined; withEvidence: boolean }): Promise<Listed[]> {
  const p = new SqlParams();
  // The organisation's findings from the device's joining it on (docs/decisions.md#indicator-audit-per-organisation).
  const where = [`f."OrganizationID" = ${p.add(caller.org)}::text`, reachCondition(caller, p), 'f.raised_at >= d."OrganizationSince"'];
  if (state === 'open') where.push('f.dismissed_at is null');
  if (state === 'dismissed') where.push('f.dismissed_at is not null');
  if (line !== undefined) where.push(`f."PowerLineID" = ${p.add(line)}::text`);
  const { rows } = await pool.query<Listed>(
    `select f.*, d."Real_Name" as name, d."Phase" as phase, pl.name as "powerLineName"${withEvidence ? EVIDENCE_COLUMNS : ''}
       from indicator_findings f join device_information d on d."IMEINumber" = f."IMEINumber"
       left join power_lines pl on pl."Id" = f."PowerLineID"
      where ${where.join(' and ')}
      order by f.id desc limit 500`,
    p.values,
  );
  return rows;
}
