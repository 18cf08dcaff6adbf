// The devices a caller may read (spec 5.3; docs/decisions.md#identity-and-access): an admin every
// non-deleted device of the organisation; a user only those linked to one of the user's (non-deleted)
// groups. Devices without device_information (unregistered IMEIs) are outside every reach, because every
// read joins through device_information.
import type pg from 'pg';
import type { Caller } from '../auth/caller.js';
import { ApiError } from '../errors.js';
import { SqlParams } from './sql.js';

/** The condition on device_information alias `d` that keeps only devices in the caller's reach. */
export function reachCondition(caller: Caller, p: SqlParams, d = 'd'): string {
  const base = `${d}.deleted_at is null and ${d}."OrganizationID" = ${p.add(caller.org)}::text`;
  if (caller.role === 'admin') return base;
  // The user's live groups are computed once per statement (an InitPlan), so each device costs one probe of
  // group_device_links' primary key: lists walk thousands of rows (a deep data-log page 56 ms to ~40 ms at
  // 1M check-ins, docs/decisions.md#storage-lifecycle).
  return `${base} and exists (
    select 1 from group_device_links l
     where l."DeviceID" = ${d}."DeviceID" and l."GroupID" = any (array(
       select ug."GroupID" from user_groups ug join groups g on g."GroupID" = ug."GroupID" and g.deleted_at is null
        where ug.user_id = ${p.add(caller.userId)}::bigint)))`;
}

// IMEIs are 15 digits; other identifiers in the field are alphanumeric. Anything else cannot name a device.
const PLAUSIBLE_IMEI = /^[A-Za-z0-9_-]{1,64}$/;

/** Whether `imei` can name a device at all; anything else (a NUL byte, SQL, 10 kB) is a 404 before any query. */
export function isPlausibleImei(imei: string | undefined): imei is string {
  return imei !== undefined && PLAUSIBLE_IMEI.test(imei);
}

export function deviceNotFound(imei: string): ApiError {
  return new ApiError('NOT_FOUND', 'No such device.', { IMEINumber: imei.slice(0, 64) });
}

/**
 * The DeviceID of `imei` when it is in the caller's reach. Unknown, deleted, unregistered and out of reach
 * are one answer (404), so the response does not tell which IMEIs exist.
 */
export async function deviceInReach(pool: pg.Pool, caller: Caller, imei: string): Promise<number> {
  if (!isPlausibleImei(imei)) throw deviceNotFound(imei);
  const p = new SqlParams();
  const sql = `select d."DeviceID" from device_information d where d."IMEINumber" = ${p.add(imei)}::text and ${reachCondition(caller, p)}`;
  const { rows } = await pool.query<{ DeviceID: number }>(sql, p.values);
  if (!rows[0]) throw deviceNotFound(imei);
  return rows[0].DeviceID;
}
