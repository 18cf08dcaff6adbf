// The SQL of the alarm API's routes (routes.ts, actions.ts): alarms in the caller's reach, their acknowledgement
// and shelving, and the organisation's rules and recipients where the routes need more than alarms/store.ts.
// Routers hold no SQL (test/structure/api-routers.test.ts); reach is api/device-records/reach.ts's condition.
import type pg from 'pg';
import type { AlarmClass } from '../../domain/alarm-kinds.js';
import { alarmClassOf } from '../../domain/alarm-states.js';
import { withTransaction } from '../../db/transaction.js';
import type { Caller } from '../auth/caller.js';
import { reachCondition } from '../device-records/reach.js';
import { SqlParams } from '../device-records/sql.js';

type Db = Pick<pg.ClientBase, 'query'>;

export const ALARM_STATES = ['active', 'acknowledged', 'cleared', 'all'] as const;
export type AlarmState = (typeof ALARM_STATES)[number];

const STATE_WHERE: Record<AlarmState, string> = {
  active: 'a.cleared_at is null and a.acknowledged_at is null',
  acknowledged: 'a.cleared_at is null and a.acknowledged_at is not null',
  cleared: 'a.cleared_at is not null',
  all: 'true',
};

/** The newest `limit` alarms of the caller's reach in `state`. */
export async function listAlarms(db: Db, caller: Caller, state: AlarmState, limit: number): Promise<Record<string, unknown>[]> {
  const p = new SqlParams();
  const reach = reachCondition(caller, p, 'd', 'a.raised_at');
  const { rows } = await db.query(
    `select a.id, a.kind, a.detail->>'label' as label, a.class, a."IMEINumber", d."Real_Name", a."PowerLineID", a.raised_at, a.acknowledged_at,
            a.acknowledged_by, a.cleared_at, a.detail->>'codeText' as "codeText"
       from alarms a join device_information d on d."IMEINumber" = a."IMEINumber"
      where ${reach} and ${STATE_WHERE[state]}
      order by a.raised_at desc, a.id desc limit ${p.add(limit)}`, p.values);
  return rows as Record<string, unknown>[];
}

/**
 * Acknowledges alarm `id` if the caller reaches it (once: a second acknowledgement keeps the first's time and
 * name); undefined when it is not there. Acknowledging stops escalation (the router escalates only unacknowledged
 * alarms) and never clears: an alarm clears when its condition ends (domain/alarm-states.ts).
 */
export async function acknowledgeAlarm(db: Db, caller: Caller, id: number, by: string, at: Date): Promise<{ id: number; acknowledged_at: Date } | undefined> {
  const p = new SqlParams();
  const reach = reachCondition(caller, p, 'd', 'a.raised_at');
  const { rows: [updated] } = await db.query<{ id: number; acknowledged_at: Date }>(
    `update alarms a set acknowledged_at = coalesce(a.acknowledged_at, ${p.add(at)}::timestamptz), acknowledged_by = coalesce(a.acknowledged_by, ${p.add(by)}::text)
       from device_information d
      where d."IMEINumber" = a."IMEINumber" and a.id = ${p.add(id)}::bigint and ${reach}
      returning a.id, a.acknowledged_at`, p.values);
  return updated;
}

/**
 * Acknowledges every unacknowledged, unshelved alarm of a feeder in the caller's reach (of class `cls` when
 * given), incident alarms included; the ids acknowledged, ascending. Never clears.
 */
export async function acknowledgeFeeder(pool: pg.Pool, caller: Caller, line: string, cls: AlarmClass | null, by: string, at: Date): Promise<number[]> {
  return withTransaction(pool, async (client) => {
    const p = new SqlParams();
    const { rows } = await client.query<{ id: string; kind: string; class: AlarmClass | null }>(
      `select a.id, a.kind, a.class from alarms a join device_information d on d."IMEINumber" = a."IMEINumber"
        where a."OrganizationID" = ${p.add(caller.org)}::text and a."PowerLineID" = ${p.add(line)}::text and a.acknowledged_at is null
          and ${reachCondition(caller, p, 'd', 'a.raised_at')}
          and not exists (select 1 from alarm_shelves s where s."IMEINumber" = a."IMEINumber" and s.kind = a.kind and s."OrganizationID" = a."OrganizationID" and s.until > ${p.add(at)}::timestamptz)
        for update of a`, p.values);
    const chosen = rows.filter((r) => cls === null || alarmClassOf(r.kind, r.class) === cls).map((r) => Number(r.id));
    await client.query('update alarms set acknowledged_at = $2, acknowledged_by = $3 where id = any($1::bigint[]) and acknowledged_at is null', [chosen, at, by]);
    return chosen.sort((a, b) => a - b);
  });
}

export interface ReachedAlarm { IMEINumber: string; kind: string; class: AlarmClass | null; chatter_count: number }

/** The alarm `id` if the caller reaches it: its device, kind, class and episodes. */
export async function alarmInReach(db: Db, caller: Caller, id: number): Promise<ReachedAlarm | undefined> {
  const p = new SqlParams();
  const { rows: [a] } = await db.query<ReachedAlarm>(
    `select a."IMEINumber", a.kind, a.class, a.chatter_count from alarms a join device_information d on d."IMEINumber" = a."IMEINumber"
      where a.id = ${p.add(id)}::bigint and ${reachCondition(caller, p, 'd', 'a.raised_at')}`, p.values);
  return a;
}

/** Shelves an alarm point (its device and kind) until `until`; `chatterAlarmId` names the row a chattering alarm's shelving is for. */
export async function shelveAlarmPoint(db: Db, shelf: { org: string; imei: string; kind: string; until: Date; by: string; at: Date; chatterAlarmId: number | null }): Promise<void> {
  await db.query(
    `insert into alarm_shelves ("OrganizationID", "IMEINumber", kind, until, shelved_by, shelved_at, chatter_alarm_id) values ($1, $2, $3, $4, $5, $6, $7)
     on conflict ("IMEINumber", kind) do update set "OrganizationID" = excluded."OrganizationID", until = excluded.until, shelved_by = excluded.shelved_by,
       shelved_at = excluded.shelved_at, chatter_alarm_id = excluded.chatter_alarm_id`,
    [shelf.org, shelf.imei, shelf.kind, shelf.until, shelf.by, shelf.at, shelf.chatterAlarmId]);
}

/** Lifts the shelving of an alarm point; true when there was one. */
export async function unshelveAlarmPoint(db: Db, org: string, imei: string, kind: string): Promise<boolean> {
  const { rowCount } = await db.query('delete from alarm_shelves where "OrganizationID" = $1 and "IMEINumber" = $2 and kind = $3', [org, imei, kind]);
  return (rowCount ?? 0) > 0;
}

export type OrganisationTable = 'alarm_rules' | 'alarm_recipients';

/** True when `id` is taken in another organisation (a write must not take it over: a 409). */
export async function ownedElsewhere(db: Db, table: OrganisationTable, id: string, org: string): Promise<boolean> {
  return ((await db.query(`select 1 from ${table} where id = $1 and "OrganizationID" <> $2`, [id, org])).rowCount ?? 0) > 0;
}

/** The ids of the organisation's rules that name recipient `id` (as a recipient or on an escalation roster). */
export async function rulesNamingRecipient(db: Db, org: string, id: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>('select id from alarm_rules where "OrganizationID" = $1 and ($2 = any(recipients) or escalation->\'roster\' ? $2)', [org, id]);
  return rows.map((r) => r.id);
}

/** Deletes the organisation's rule or recipient `id`; false when it had none. */
export async function deleteOwned(db: Db, table: OrganisationTable, id: string, org: string): Promise<boolean> {
  const { rowCount } = await db.query(`delete from ${table} where id = $1 and "OrganizationID" = $2`, [id, org]);
  return (rowCount ?? 0) > 0;
}
