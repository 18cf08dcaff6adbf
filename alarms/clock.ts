// The communication-lost clock (issue 20 point 2): raises the alarm of every registered device whose
// learned deadline (domain/checkin-clock.ts offlineAtSql) passed. Safe with any number of processes running
// it at once: the scan locks the clock rows it acts on (`for update`), so a check-in that advances a clock
// meanwhile waits for the scan (and then ends the alarm it raised). A row already locked, by a check-in under
// way or another scanner, is skipped (`skip locked`), never waited for: the scan meets rows in its plan's order,
// notify locks them in key order, and waiting would let the two deadlock under a backlog; a skipped device is
// speaking right now, and if that check-in never commits the next tick's scan raises it
// (docs/decisions.md#lock-order-under-a-backlog). The alarm's unique (device, kind, episode) makes a second
// scanner's insert a no-op. The episode is the last check-in before the silence: one alarm per device and outage.
// Deadlines are judged at the pipeline's progress, not the wall clock (domain/checkin-clock.ts silenceAsOf), so
// devices whose check-ins wait in a backlog are not called silent
// (docs/decisions.md#silence-judged-against-the-pipelines-progress); the alarm is still dated now.
import type pg from 'pg';
import { alarmLabel, COMMUNICATION_LOST } from '../domain/alarm-kinds.js';
import { offlineAtSql, silenceAsOfSql, type SilenceLimits } from '../domain/checkin-clock.js';

export type ClockLimitsS = SilenceLimits;

/** Raises what is due at `nowMs`; resolves with the ids of the alarms raised by this call. */
export async function scanCommunicationLost(pool: pg.Pool, { floorS, ceilingS, lagBoundS = 0 }: ClockLimitsS, nowMs: number): Promise<number[]> {
  const { rows } = await pool.query<{ id: number }>(`
    with as_of as (select ${silenceAsOfSql('$1', '$6')} as at),
    due as (
      select c."IMEINumber", c.last_date, d."OrganizationID", d."PowerLineID", d."Real_Name"
        from checkin_clock c join device_information d on d."IMEINumber" = c."IMEINumber" and d.deleted_at is null
       where ${offlineAtSql('c.last_date', 'c.expected_interval_s', '$2', '$3')} < (select at from as_of)
         and not exists (select 1 from alarms a where a."IMEINumber" = c."IMEINumber" and a.kind = $4 and a.cleared_at is null
                            and a."OrganizationID" = d."OrganizationID")
       for update of c skip locked
    ), raised as (
      insert into alarms ("OrganizationID", "IMEINumber", kind, episode, "PowerLineID", detail, raised_at)
      select "OrganizationID", "IMEINumber", $4,
             to_char(last_date at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), "PowerLineID",
             jsonb_build_object('label', $5::text, 'deviceName', "Real_Name", 'lastCheckIn', last_date), $1::timestamptz
        from due
      on conflict do nothing
      returning id, raised_at)
    insert into alarm_changes (alarm_id, change, at) select id, 'raised', raised_at from raised returning alarm_id as id`,
  [new Date(nowMs), floorS, ceilingS, COMMUNICATION_LOST, alarmLabel(COMMUNICATION_LOST), lagBoundS]);
  return rows.map((r) => r.id);
}
