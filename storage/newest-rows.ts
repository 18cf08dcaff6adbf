// The newest rows kept per device beside the partitioned tables (migrations 0056 and 0057,
// docs/decisions.md#a-devices-newest-rows-kept): their triggers keep them through every insert, update and delete;
// what fires no trigger is done here. Retention's DROP of a month's partitions (forgetNewest before it, fillNewest
// after the step's last), and the repair of a drop no trigger and no forgetNewest saw (sweepNewest: a previous
// release's retention, still running beside this one's migrations during an upgrade or after a rollback).
import type pg from 'pg';

/**
 * A partitioned table's newest rows kept per device: the table, which of its rows `k` came from the partitioned one,
 * how such a row matches a row `p` of it, its partition key, and the fill.
 */
interface Kept { table: string; own: string; match: string; time: string; refill: string }

const NEWEST_KEPT: Record<string, Kept> = {
  device_currents: { table: 'device_currents_newest', own: 'true', match: 'k."IMEINumber" = p."IMEINumber" and k."PacketTimestamp" = p."PacketTimestamp"', time: 'PacketTimestamp', refill: 'fl_currents_newest_refill' },
  event_records: { table: 'device_events_newest', own: `k."EventTable" = 'standard'`, match: `k."IMEINumber" = p."IMEINumber" and k."EventTimestamp" = p."EventTimestamp" and k."EventTable" = 'standard' and k."Event_Record_ID" = p."Event_Record_ID"`, time: 'ReportedEventTimestamp', refill: 'fl_events_newest_refill' },
  dm1_event_records: { table: 'device_events_newest', own: `k."EventTable" = 'dm1'`, match: `k."IMEINumber" = p."IMEINumber" and k."EventTimestamp" = p."EventTimestamp" and k."EventTable" = 'dm1' and k."Event_Record_ID" = p."Event_Record_ID"`, time: 'ReportedEventTimestamp', refill: 'fl_events_newest_refill' },
};

/**
 * A partition's rows of `table` in the newest rows kept go, before the partition is dropped (a DROP fires no trigger).
 * Returns the devices they thinned, to fill again once the step's partitions are gone (fillNewest).
 */
export async function forgetNewest(client: pg.PoolClient, table: string, partition: string): Promise<string[]> {
  const kept = NEWEST_KEPT[table];
  if (!kept) return [];
  const { rows } = await client.query<{ devices: string[] | null }>(`with gone as (
      delete from ${kept.table} k using "${partition}" p where ${kept.match} returning k."IMEINumber")
    select array_agg(distinct "IMEINumber") as devices from gone`);
  return rows[0]!.devices ?? [];
}

/** The devices forgetNewest thinned, filled again from `table`'s rows left, once (not once per piece of a month at a finer cut). */
export async function fillNewest(client: pg.PoolClient | pg.Pool, table: string, devices: readonly string[]): Promise<void> {
  const kept = NEWEST_KEPT[table];
  if (kept && devices.length > 0) await client.query(`select ${kept.refill}($1::text[])`, [[...new Set(devices)]]);
}

/**
 * Kept rows older than `table`'s oldest partition whose row is gone (a month dropped without forgetNewest) go, and their
 * devices are filled again. Only what lies below the oldest partition is looked at: normally nothing, or the few strays
 * of the default partition, each found by its key. Returns how many went.
 */
export async function sweepNewest(pool: pg.Pool, table: string): Promise<number> {
  const kept = NEWEST_KEPT[table]!;
  const { rows } = await pool.query<{ n: number; devices: string[] | null }>(`with gone as (
      delete from ${kept.table} k
       where ${kept.own} and k."${kept.time}" < (select coalesce(min(t.lo), '-infinity') from fl_time_partitions() t where t.parent = $1)
         and not exists (select 1 from ${table} p where ${kept.match} and p."${kept.time}" = k."${kept.time}")
      returning k."IMEINumber")
    select count(*)::int as n, array_agg(distinct "IMEINumber") as devices from gone`, [table]);
  await fillNewest(pool, table, rows[0]!.devices ?? []);
  return rows[0]!.n;
}

/** The partitioned tables with newest rows kept. */
export const TABLES_WITH_NEWEST = Object.keys(NEWEST_KEPT);
