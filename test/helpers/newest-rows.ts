// The newest rows kept per device (migrations 0057 and 0058) against the tables they are kept from, checked here in SQL
// of its own: what the triggers, the back-fills and retention keep must be each device's newest rows, as many as promised.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import * as assert from 'uvu/assert';
import { maintainStorage } from '../../storage/maintenance.js';
import { waitFor } from '../../support/wait-for.js';

/**
 * Fails `what` unless every device's rows in device_currents_newest are, column for column, its newest rows in
 * device_currents, at least least(its rows, kept) and at most kept + slack of them.
 */
export async function assertNewestCurrentsKept(pool: pg.Pool, what: string): Promise<void> {
  const { rows } = await pool.query<{ kept: string | null; newest: string | null; short: string[] | null; long: string[] | null; miscounted: string[] | null; devices: number }>(`
    with sizes as (select "IMEINumber", count(*) as n from device_currents_newest group by 1),
    totals as (select "IMEINumber", count(*) as n from device_currents group by 1),
    ranked as (select b, b."IMEINumber", b."PacketTimestamp", row_number() over (partition by b."IMEINumber" order by b."PacketTimestamp" desc) as r from device_currents b)
    select (select md5(string_agg(k::text, ',' order by k."IMEINumber", k."PacketTimestamp")) from device_currents_newest k) as kept,
           (select md5(string_agg(x.b::text, ',' order by x."IMEINumber", x."PacketTimestamp")) from ranked x join sizes s using ("IMEINumber") where x.r <= s.n) as newest,
           (select array_agg(t."IMEINumber") from totals t left join sizes s using ("IMEINumber")
             where coalesce(s.n, 0) < least(t.n, fl_currents_newest_kept())) as short,
           (select array_agg("IMEINumber") from sizes where n > fl_currents_newest_kept() + fl_currents_newest_slack()) as long,
           (select array_agg(c."IMEINumber") from device_read_counts c full join sizes s using ("IMEINumber") where coalesce(c.currents_kept, -1) <> coalesce(s.n, 0)) as miscounted,
           (select count(*)::int from totals) as devices`);
  const r = rows[0]!;
  assert.ok(r.devices > 0, `${what}: devices with currents to check`);
  assert.equal(r.short, null, `${what}: devices with fewer newest rows kept than promised`);
  assert.equal(r.long, null, `${what}: devices with more newest rows kept than kept + slack`);
  assert.equal(r.miscounted, null, `${what}: devices whose device_read_counts.currents_kept is not their rows kept`);
  assert.is(r.kept, r.newest, `${what}: device_currents_newest holds each device's newest rows of device_currents`);
}

/** Each row of both event tables in device_events_newest's shape (EventTable saying which; the other table's columns null). */
const BOTH_EVENT_TABLES = `
  select 'standard'::text as "EventTable", e."Event_Record_ID", e."EventID", e."EventTimestamp", e."EventType", e."PrefaultCurrent", e."FaultCurrent",
         e."RecoverCurrent", null::text as "PhaseAEvent", null::text as "PhaseBEvent", null::text as "PhaseCEvent", e."PacketTimestamp", e."IMEINumber",
         e."DeviceRecordID", e."ReportedEventTimestamp" from event_records e
  union all
  select 'dm1', e."Event_Record_ID", e."EventID", e."EventTimestamp", e."EventType", null, null, null, e."PhaseAEvent", e."PhaseBEvent", e."PhaseCEvent",
         e."PacketTimestamp", e."IMEINumber", e."DeviceRecordID", e."ReportedEventTimestamp" from dm1_event_records e`;

/**
 * Fails `what` unless every device's rows in device_events_newest are, column for column, its newest rows of both event
 * tables in the events list's order, at least least(its rows, kept) and at most kept + slack of them.
 */
export async function assertNewestEventsKept(pool: pg.Pool, what: string): Promise<void> {
  const { rows } = await pool.query<{ kept: string | null; newest: string | null; short: string[] | null; long: string[] | null; miscounted: string[] | null; devices: number }>(`
    with base as (${BOTH_EVENT_TABLES}),
    sizes as (select "IMEINumber", count(*) as n from device_events_newest group by 1),
    totals as (select "IMEINumber", count(*) as n from base group by 1),
    ranked as (select b, b."IMEINumber", b."EventTable", b."Event_Record_ID",
                      row_number() over (partition by b."IMEINumber" order by b."EventTimestamp" desc, b."EventTable", b."Event_Record_ID" desc) as r from base b)
    select (select md5(string_agg(k::text, ',' order by k."IMEINumber", k."EventTable", k."Event_Record_ID")) from device_events_newest k) as kept,
           (select md5(string_agg(x.b::text, ',' order by x."IMEINumber", x."EventTable", x."Event_Record_ID")) from ranked x join sizes s using ("IMEINumber") where x.r <= s.n) as newest,
           (select array_agg(t."IMEINumber") from totals t left join sizes s using ("IMEINumber")
             where coalesce(s.n, 0) < least(t.n, fl_events_newest_kept())) as short,
           (select array_agg("IMEINumber") from sizes where n > fl_events_newest_kept() + fl_events_newest_slack()) as long,
           (select array_agg(c."IMEINumber") from device_read_counts c full join sizes s using ("IMEINumber") where coalesce(c.events_kept, -1) <> coalesce(s.n, 0)) as miscounted,
           (select count(*)::int from totals) as devices`);
  const r = rows[0]!;
  assert.ok(r.devices > 0, `${what}: devices with events to check`);
  assert.equal(r.short, null, `${what}: devices with fewer newest events kept than promised`);
  assert.equal(r.long, null, `${what}: devices with more newest events kept than kept + slack`);
  assert.equal(r.miscounted, null, `${what}: devices whose device_read_counts.events_kept is not their events kept`);
  assert.is(r.kept, r.newest, `${what}: device_events_newest holds each device's newest events of both tables`);
}

/** One run of the storage maintenance as `faultline start` runs it daily, its archive in a folder of its own. */
export async function maintainOnce(pool: pg.Pool, now: number): Promise<void> {
  const archiveDir = mkdtempSync(join(tmpdir(), 'faultline-newest-'));
  try {
    await maintainStorage(pool, archiveDir, now);
  } finally { rmSync(archiveDir, { recursive: true, force: true }); }
}

/** The backend of `client`, for waitingOnLock (asked before the client sends what will wait). */
export const backendPid = async (client: pg.Client): Promise<number> => (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;

/** Resolves once backend `pid` waits for a lock (a second writer behind the first). */
export const waitingOnLock = (pool: pg.Pool, pid: number, what: string): Promise<true> => waitFor(what, async () =>
  Number((await pool.query<{ n: string }>(`select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and pid = $1`, [pid])).rows[0]!.n) === 1 || null);
