// The devices a caller may read (spec 5.3; docs/decisions.md#identity-and-access): an admin (and an
// integration key, which reads only the integration outputs) every non-deleted device of the organisation; a user only those linked to one of the user's (non-deleted)
// groups; and of a device moved between organisations only the records from its move on
// (docs/decisions.md#reach-applied-once). The SQL form of domain/reach.ts mayRead: every reader of device
// data (device-records, alarms, incidents, test faults, DNP3 point map, SOAP) goes through this file.
// Devices without device_information (unregistered IMEIs) are outside every reach, because every read joins
// through device_information.
import type pg from 'pg';
import { timestamptzLiteral } from '../../db/sql-literal.js';
import type { Caller } from '../auth/caller.js';
import { ApiError } from '../errors.js';
import { prepared } from './prepared.js';
import type { ShortCache } from './short-cache.js';
import { SqlParams } from './sql.js';

/** Who is asking, as reach needs it: a REST token's caller or a SOAP login. */
export type ReachCaller = Pick<Caller, 'userId' | 'org' | 'role'>;

/** Whether the caller reaches every non-deleted device of its organisation (an admin, an integration key), not a group's. */
export const reachesWholeOrganisation = (caller: ReachCaller): boolean => caller.role === 'admin' || caller.role === 'integration';

/**
 * The condition on device_information alias `d` that keeps only devices in the caller's reach; with `at`
 * (the SQL of a record's instant: a check-in's date, an event's PacketTimestamp, an alarm's raised_at), only
 * the records from the device's joining the organisation on.
 */
export function reachCondition(caller: ReachCaller, p: Pick<SqlParams, 'add'>, d = 'd', at?: string): string {
  const since = at === undefined ? '' : ` and ${at} >= ${d}."OrganizationSince"`;
  const base = `${d}.deleted_at is null and ${d}."OrganizationID" = ${p.add(caller.org)}::text${since}`;
  if (reachesWholeOrganisation(caller)) return base;
  // The user's live groups are computed once per statement (an InitPlan), so each device costs one probe of
  // group_device_links' primary key: lists walk thousands of rows (a deep data-log page 56 ms to ~40 ms at
  // 1M check-ins, docs/decisions.md#storage-lifecycle).
  return `${base} and exists (
    select 1 from group_device_links l
     where l."DeviceID" = ${d}."DeviceID" and l."GroupID" = any (array(
       select ug."GroupID" from user_groups ug join groups g on g."GroupID" = ug."GroupID" and g.deleted_at is null
        where ug.user_id = ${p.add(caller.userId)}::bigint)))`;
}

/**
 * How a walk over record table `r` keeps to the caller's reach: `join` goes into the walk's `from`, `conditions` into
 * its `where`. `probe` (PROBE_JOIN): each record's device looked up by IMEI (memoized per IMEI), three to five
 * buffers per record visited whose device was not seen yet: cheapest for a page that stops after a few dozen records.
 * `set` (with its `with`, the statement's WITH list): the devices in reach read once per statement (a materialized
 * CTE, REACH_SET) and each record checked by the IMEI its index entry holds against a hash of them (a hashed SubPlan;
 * `is true` keeps the planner from turning the test into a join, which sorts the window). An OFFSET page walks every
 * skipped record, and probing each one's device cost 20-50 ms of Postgres at page 200
 * (docs/decisions.md#deep-pages-hash-the-reach). The test stays in the walk of each partition, under the page's
 * LIMIT, so the planner keeps the index walk that stops at the page; each partition the walk enters hashes the CTE's
 * rows (not the device table) once. `lateral` (lateralReach): a probe the planner cannot turn into a hash of the
 * devices, for a prepared statement whose values change how many rows the planner expects.
 */
export interface RecordReach { form: 'probe' | 'set' | 'lateral'; join: string; conditions: string[]; with?: string }

/** The name of the set form's CTE. */
const REACH_SET = 'reach_set';

/** What a probe needs in the walk's `from`: each record's device as `d`. */
export const PROBE_JOIN = 'join device_information d on d."IMEINumber" = r."IMEINumber"';

/**
 * Hashing the reach costs about a quarter of a probe per device in reach (EXPLAIN at 1M check-ins: docs/decisions.md#deep-pages-hash-the-reach),
 * so the set is chosen once a walk visits a quarter as many records as the caller reaches devices.
 */
export const SET_FROM_VISITS_PER_DEVICE = 0.25;

/** The reach of a walk over `r` (anything with r."IMEINumber") that visits at least `visited` records when the caller reaches `reached` devices, on `p`. */
export function recordReach(caller: ReachCaller, p: Pick<SqlParams, 'add'>, { visited, reached }: { visited: number; reached: number }): RecordReach {
  if (visited < reached * SET_FROM_VISITS_PER_DEVICE) {
    return { form: 'probe', join: PROBE_JOIN, conditions: [reachCondition(caller, p)] };
  }
  return {
    form: 'set',
    join: '',
    conditions: [`(r."IMEINumber" in (select s."IMEINumber" from ${REACH_SET} s)) is true`],
    with: `${REACH_SET} as materialized (select d."IMEINumber" from device_information d where ${reachCondition(caller, p)})`,
  };
}

/**
 * The probe as a LATERAL subquery: a lookup parameterised by each record's IMEI (memoized per IMEI), which the planner
 * can run only as such, never as a join that hashes the devices. A generic plan of the plain probe's join hashed the
 * devices when the tables were small and probed them when large (a group user's week with its range as values: the
 * plan-bound test's 75 -> 181 buffers), so a prepared statement whose values change how many rows the planner
 * expects takes this form (docs/decisions.md#a-weeks-fleet-pages-prepared). `limit 1` keeps the subquery from
 * being pulled up into a plain join.
 */
export function lateralReach(caller: ReachCaller, p: Pick<SqlParams, 'add'>): RecordReach {
  return {
    form: 'lateral',
    join: `cross join lateral (select 1 from device_information d where d."IMEINumber" = r."IMEINumber" and ${reachCondition(caller, p)} limit 1) reach`,
    conditions: [],
  };
}

/**
 * The set's walk goes through every organisation's records in the page's order and the planner cannot start from the
 * caller's devices instead: it pays only when the caller's devices are a fair share of the fleet's (the walk then
 * meets the caller's records at least this densely, by devices). A user who reaches a few devices, or none, walked the
 * whole fleet's window for each window tried, where the probe form reads the few devices' records (deep-pages.test.ts).
 */
export const SET_FROM_SHARE_OF_FLEET = 0.25;

/**
 * The reach of a page's walk over `r` that skips `skipped` records before its `limit`: a first or keyset page
 * probes without asking anything more, and so does a `filtered` walk (a condition on a column the record index does
 * not hold: the walk reads each row anyway, and the probe form lets the planner start from the caller's devices).
 * An OFFSET page asks how many devices the caller reaches and the fleet holds, counted at most once a minute per
 * reach (organisation, and user for a group user) in `sizes`. The counts only choose the walk's form, never what it
 * answers, so a minute-old count costs at most a slower plan.
 */
export async function pageReach(pool: Pick<pg.Pool, 'query'>, sizes: ShortCache<number>, caller: ReachCaller, p: Pick<SqlParams, 'add'>, { skipped, limit, filtered = false }: { skipped: number; limit: number; filtered?: boolean }): Promise<RecordReach> {
  if (skipped === 0 || filtered) return recordReach(caller, p, { visited: limit, reached: Infinity });
  const count = async (where: string, values: unknown[]) => {
    const { rows } = await pool.query<{ n: string }>(prepared(`select count(*) as n from device_information d where ${where}`, values));
    return Number(rows[0]!.n);
  };
  const key = JSON.stringify([caller.org, reachesWholeOrganisation(caller) ? null : caller.userId]);
  const reached = await sizes(key, () => { const q = new SqlParams(); return count(reachCondition(caller, q), q.values); });
  // Not a JSON array: never a reach's key.
  const fleet = await sizes('fleet', () => count('d.deleted_at is null', []));
  if (reached === 0 || reached < fleet * SET_FROM_SHARE_OF_FLEET) return recordReach(caller, p, { visited: limit, reached: Infinity });
  return recordReach(caller, p, { visited: skipped + limit, reached });
}

/** The caller's organisation's devices moved into it, IMEI to the move's instant; null when none (the usual case). */
export type MovedDevices = Record<string, string> | null;

/** The organisation's moved devices, read once for a request whose statements all need them (a page and its total). */
export async function movedDevices(pool: pg.Pool, caller: ReachCaller): Promise<MovedDevices> {
  const { rows } = await pool.query<{ moved: MovedDevices }>(
    `select jsonb_object_agg("IMEINumber", "OrganizationSince") as moved from device_information
      where "OrganizationID" = $1 and "OrganizationSince" > '-infinity'`, [caller.org]);
  return rows[0]?.moved ?? null;
}

/**
 * The record lists' form of the `at` condition (data-log, critical-data), from `moved` (movedDevices): the
 * organisation's moved devices (rare) are read first, and each record's instant is compared with its device's move, looked up by IMEI in
 * a jsonb parameter. A condition on the record alone keeps the device join of these lists memoized per IMEI
 * (a deep data-log page joins each device once, not each record); `at >= d."OrganizationSince"` in that
 * join made it one probe per record (4x slower at 300k check-ins, docs/decisions.md#reach-applied-once).
 * Nothing moved into the organisation: no condition, the statement is as it was.
 */
export function movedSinceCondition(moved: MovedDevices, p: Pick<SqlParams, 'add'>, imei: string, at: string): string[] {
  if (!moved) return [];
  return [`${at} >= coalesce((${p.add(JSON.stringify(moved))}::jsonb ->> ${imei})::timestamptz, '-infinity')`];
}

/** Which of `imeis` are in the caller's reach, in one statement (for answers that name other indicators). */
export async function imeisInReach(db: Pick<pg.Pool, 'query'>, caller: ReachCaller, imeis: readonly string[]): Promise<Set<string>> {
  if (imeis.length === 0) return new Set();
  const p = new SqlParams();
  const { rows } = await db.query<{ IMEINumber: string }>(
    `select d."IMEINumber" from device_information d where d."IMEINumber" = any(${p.add(imeis)}::text[]) and ${reachCondition(caller, p)}`, p.values);
  return new Set(rows.map((r) => r.IMEINumber));
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

export interface DeviceReach {
  deviceId: number;
  /** When the device joined the caller's organisation; null when it never moved (its whole history is readable). */
  since: Date | null;
  /** Its rows as the counters of migrations 0004 and 0053 hold them (0 before the first): its check-ins, events (both
   * tables) and currents, the totals of its unfiltered, unranged data-log, events and load history when `since`
   * is null (totals.ts deviceTotal). */
  counts: DeviceCounts;
}

export interface DeviceCounts { records: number; events: number; currents: number }

/**
 * The device `imei` when it is in the caller's reach. Unknown, deleted, unregistered and out of reach are
 * one answer (404), so the response does not tell which IMEIs exist.
 */
export async function deviceInReach(pool: pg.Pool, caller: ReachCaller, imei: string): Promise<DeviceReach> {
  if (!isPlausibleImei(imei)) throw deviceNotFound(imei);
  const p = new SqlParams();
  const sql = `select d."DeviceID", nullif(d."OrganizationSince", '-infinity') as since,
                      coalesce(c.records, 0) as records, coalesce(c.events, 0) as events, coalesce(c.currents, 0) as currents
                 from device_information d left join device_read_counts c on c."IMEINumber" = d."IMEINumber"
                where d."IMEINumber" = ${p.add(imei)}::text and ${reachCondition(caller, p)}`;
  // Prepared: planning this join took 0.4 ms of Postgres a request, four times its run (one device's lists).
  const { rows } = await pool.query<{ DeviceID: number; since: Date | null } & Record<keyof DeviceCounts, string>>(prepared(sql, p.values));
  const row = rows[0];
  if (!row) throw deviceNotFound(imei);
  return { deviceId: Number(row.DeviceID), since: row.since, counts: { records: Number(row.records), events: Number(row.events), currents: Number(row.currents) } };
}

/**
 * The per-device history's condition on the record instant `at`: none for a device that never moved (the
 * statement, and its plan, stay as they were), else `at >= <the move>`, spelled in like a day range's bounds
 * (db/sql-literal.ts) so the planner prunes the months before the move.
 */
export function historyConditions(at: string, reach: DeviceReach): string[] {
  return reach.since === null ? [] : [`${at} >= ${timestamptzLiteral(reach.since.getTime())}`];
}

/** The caller's devices as a device filter `{ sql, values }` (the point map and device profile list only these) (a group user's map lists the devices of their groups). */
export function devicesInReach(caller: ReachCaller): { sql: string; values: unknown[] } {
  const p = new SqlParams();
  return { sql: reachCondition(caller, p), values: p.values };
}
