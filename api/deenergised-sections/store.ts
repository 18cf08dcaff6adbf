// The SQL of GET /api/deenergised-sections (routes.ts): the organisation's possible de-energised sections with a
// silent indicator in the caller's reach, and the indicators they name with whether each is in reach.
import type pg from 'pg';
import type { Caller } from '../auth/caller.js';
import { reachCondition } from '../device-records/reach.js';
import { SqlParams } from '../device-records/sql.js';

export interface SectionRow {
  id: string; PowerLineID: string; powerLineName: string | null; point_imei: string; upstream_imei: string | null; phase: string; label: string;
  devices: { imei: string; name: string | null; silentSince: string }[]; silent_since: Date; status: string; opened_at: Date; closed_at: Date | null; closed_reason: string | null;
}

/** The newest `limit` sections of the caller's organisation with a silent indicator in reach; `status` 'all' or one status. */
export async function readSections(pool: pg.Pool, caller: Caller, { status, line, limit }: { status: string; line: string | undefined; limit: number }): Promise<SectionRow[]> {
  const p = new SqlParams();
  const where = [`s."OrganizationID" = ${p.add(caller.org)}::text`,
    `exists (select 1 from jsonb_array_elements(s.devices) x join device_information d on d."IMEINumber" = x->>'imei' where ${reachCondition(caller, p)})`];
  if (status !== 'all') where.push(`s.status = ${p.add(status)}::text`);
  if (line !== undefined) where.push(`s."PowerLineID" = ${p.add(line)}::text`);
  const { rows } = await pool.query<SectionRow>(
    `select s.id, s."PowerLineID", pl.name as "powerLineName", s.point_imei, s.upstream_imei, s.phase, s.label, s.devices, s.silent_since, s.status,
            s.opened_at, s.closed_at, s.closed_reason
       from deenergised_sections s join power_lines pl on pl."Id" = s."PowerLineID"
      where ${where.join(' and ')} order by s.id desc limit ${p.add(limit)}::int`, p.values);
  return rows;
}

/** The indicators `imeis`, with where they stand and whether each is in the caller's reach. */
export async function namedIndicators(pool: pg.Pool, caller: Caller, imeis: string[]) {
  const q = new SqlParams();
  const { rows } = await pool.query<{ IMEINumber: string; Real_Name: string | null; Lat: number | null; Long: number | null; in_reach: boolean }>(
    `select d."IMEINumber", d."Real_Name", d."Lat", d."Long", (${reachCondition(caller, q)}) as in_reach
       from device_information d where d."IMEINumber" = any(${q.add(imeis)}::text[])`, q.values);
  return rows;
}
