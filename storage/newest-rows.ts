// The newest rows kept per device beside the partitioned tables (migrations 0057 and 0058,
// docs/decisions.md#a-devices-newest-rows-kept): their triggers keep them through every insert, update and delete;
// what fires no trigger is done here. Retention's DROP of a month's partitions (forgetNewest before it, fillNewest
// after the step's last), and the repair of a drop no trigger and no forgetNewest saw (sweepNewest: a previous
// release's retention, still running beside this one's migrations during an upgrade or after a rollback).
import type pg from 'pg';
import { withTransaction } from '../db/transaction.js';

/**
 * A partitioned table's newest rows kept per device: the table, which of its rows `k` came from the partitioned one,
 * how such a row matches a row `p` of it, its partition key, and the fill.
 */
interface Kept { table: string; own: string; match: string; time: string; refill: string; counted: string; total: string }

const NEWEST_KEPT: Record<string, Kept> = {
  device_currents: { table: 'device_currents_newest', own: 'true', match: 'k."IMEINumber" = p."IMEINumber" and k."PacketTimestamp" = p."PacketTimestamp"', time: 'PacketTimestamp', refill: 'fl_currents_newest_refill', counted: 'currents_kept', total: 'currents' },
  event_records: { table: 'device_events_newest', own: `k."EventTable" = 'standard'`, match: `k."IMEINumber" = p."IMEINumber" and k."EventTimestamp" = p."EventTimestamp" and k."EventTable" = 'standard' and k."Event_Record_ID" = p."Event_Record_ID"`, time: 'ReportedEventTimestamp', refill: 'fl_events_newest_refill', counted: 'events_kept', total: 'events' },
  dm1_event_records: { table: 'device_events_newest', own: `k."EventTable" = 'dm1'`, match: `k."IMEINumber" = p."IMEINumber" and k."EventTimestamp" = p."EventTimestamp" and k."EventTable" = 'dm1' and k."Event_Record_ID" = p."Event_Record_ID"`, time: 'ReportedEventTimestamp', refill: 'fl_events_newest_refill', counted: 'events_kept', total: 'events' },
};

/** `gone`'s kept rows (a CTE returning their IMEIs) counted down on their devices' counter rows, which the statement returns. */
const countedDown = (kept: Kept) => `n as (select "IMEINumber", count(*) as n from gone group by 1)
  update device_read_counts c set ${kept.counted} = c.${kept.counted} - n.n from n where c."IMEINumber" = n."IMEINumber" returning c."IMEINumber"`;

/**
 * A partition's rows of `table` in the newest rows kept go, before the partition is dropped (a DROP fires no trigger),
 * counted down on counter rows retention's uncount has locked already. Returns the devices they thinned, to fill again
 * once the step's partitions are gone (fillNewest).
 */
export async function forgetNewest(client: pg.PoolClient, table: string, partition: string): Promise<string[]> {
  const kept = NEWEST_KEPT[table];
  if (!kept) return [];
  const { rows } = await client.query<{ IMEINumber: string }>(`with gone as (
      delete from ${kept.table} k using "${partition}" p where ${kept.match} returning k."IMEINumber"), ${countedDown(kept)}`);
  return rows.map((r) => r.IMEINumber);
}

/**
 * The devices forgetNewest thinned, filled again from `table`'s rows left, once (not once per piece of a month at a
 * finer cut); the fill reads the partitioned tables only for a device with fewer kept than its rows and the promise.
 */
export async function fillNewest(client: pg.PoolClient | pg.Pool, table: string, devices: readonly string[]): Promise<void> {
  const kept = NEWEST_KEPT[table];
  if (kept && devices.length > 0) await client.query(`select ${kept.refill}($1::text[])`, [[...new Set(devices)]]);
}

/**
 * Kept rows whose row is gone go, and their devices are filled again: those whose time no partition of `table` covers
 * (a month dropped without forgetNewest, or a default partition's stray), and those of a device that keeps more rows
 * than it has (the month made again since, by a restore or a stray: its kept rows are no longer in a gap). One
 * transaction holding those devices' counter rows (as every writer of them does), so neither a crash nor a concurrent
 * writer sees them thinned. Reads the kept table once, and `table` only for those rows, each by its key. Not found:
 * a month dropped and made again whose device keeps no more rows than it has (docs/decisions.md#a-devices-newest-rows-kept).
 * Returns the devices swept.
 */
export async function sweepNewest(pool: pg.Pool, table: string): Promise<number> {
  const kept = NEWEST_KEPT[table]!;
  const stale = `from ${kept.table} k
       where ${kept.own}
         and (exists (select 1 from fl_partition_gaps($1) g where k."${kept.time}" >= g.lo and k."${kept.time}" < g.hi)
              or k."IMEINumber" in (select c."IMEINumber" from device_read_counts c where c.${kept.counted} > c.${kept.total}))
         and not exists (select 1 from ${table} p where ${kept.match} and p."${kept.time}" = k."${kept.time}")`;
  return withTransaction(pool, async (client) => {
    const { rows: devices } = await client.query<{ IMEINumber: string }>(`select distinct k."IMEINumber" ${stale}`, [table]);
    if (devices.length === 0) return 0;
    await client.query(`select 1 from device_read_counts c where c."IMEINumber" = any($1::text[]) order by c."IMEINumber" for no key update`, [devices.map((d) => d.IMEINumber)]);
    const { rows } = await client.query<{ IMEINumber: string }>(`with gone as (delete ${stale} returning k."IMEINumber"), ${countedDown(kept)}`, [table]);
    await fillNewest(client, table, rows.map((r) => r.IMEINumber));
    return rows.length;
  });
}

/** The partitioned tables with newest rows kept. */
export const TABLES_WITH_NEWEST = Object.keys(NEWEST_KEPT);
