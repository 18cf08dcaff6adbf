// The partitions of the device-data tables (migrations 0008 and 0049, docs/decisions.md#storage-lifecycle,
// #partition-granularity). A month is cut into one partition, four or one a day (PARTITION_GRANULARITY, the
// cut recorded in storage_partition_cut); every cut nests in its month, so callers here still deal in months.
// The service creates them itself: MONTHS_AHEAD in advance (storage/maintenance.ts) and on demand for any
// month a batch brings (persist). A row whose range has no partition still lands in the table's default
// partition and is moved out when its month is created (fl_ensure_month), so nothing is refused. Months far
// from now (domain/storage-months.ts mayCreateMonth) are never created from device data: their rows stay in
// the default partition (docs/decisions.md#hostile-callers).
import type pg from 'pg';
import { failpoint } from '../config/failpoints.js';
import { log } from '../config/log.js';
import type { Fleet, Granularity } from '../domain/partition-granularity.js';
import { mayCreateMonth, monthDate, monthOfMs, monthOfTimestamp } from '../domain/storage-months.js';
import type { ComputedCheckIn } from '../schemas/avro/values.js';

/** Months after the current one that always exist (at any cut), so ordinary traffic never waits on DDL. */
export const MONTHS_AHEAD = 3;

// Months this process knows exist, per pool. A month that retention dropped meanwhile is not forgotten here:
// its late rows go to the default partition and the next maintenance run moves them out.
const known = new WeakMap<pg.Pool, Set<string>>();

/**
 * Creates the missing partitions of every month in `months` that this process has not seen and that may be
 * created (mayCreateMonth), at the recorded cut, one month per transaction; returns how many it made. Months
 * outside are left to the default partition.
 */
export async function ensureMonths(pool: pg.Pool, months: Iterable<string>, nowMs: number = Date.now()): Promise<number> {
  let seen = known.get(pool);
  if (!seen) known.set(pool, (seen = new Set()));
  let made = 0;
  const wanted = [...new Set(months)].filter((m) => !seen.has(m));
  const outside = wanted.filter((m) => !mayCreateMonth(m, nowMs, MONTHS_AHEAD));
  if (outside.length) log.warn({ months: outside.sort() }, 'rows dated far from now: stored in the default partition, no month partition made');
  for (const month of wanted.filter((m) => mayCreateMonth(m, nowMs, MONTHS_AHEAD)).sort()) {
    const { rows } = await pool.query<{ made: number }>('select fl_ensure_month($1::date) as made', [monthDate(month)]);
    made += rows[0]!.made;
    seen.add(month);
    if (rows[0]!.made > 0) await failpoint('storage.month-created');
  }
  return made;
}

/** The months a persist batch writes into: the check-in's date (records, currents) and its events' reported times. */
export function monthsOfBatch(messages: readonly ComputedCheckIn[]): Set<string> {
  const months = new Set<string>();
  for (const m of messages) {
    months.add(monthOfTimestamp(m.checkIn.device_data.date));
    for (const e of m.checkIn.events) months.add(monthOfTimestamp(e.EventTimestamp));
  }
  return months;
}

export interface PartitionedTable { table: string; timeColumn: string }

/** The time-partitioned tables and their partition column (migration 0008's list). */
export async function partitionedTables(pool: pg.Pool | pg.PoolClient): Promise<PartitionedTable[]> {
  const { rows } = await pool.query<{ table_name: string; time_column: string }>('select table_name, time_column from storage_partitioned_tables order by table_name');
  return rows.map((r) => ({ table: r.table_name, timeColumn: r.time_column }));
}

/** The cut new months get (storage_partition_cut, migration 0049). */
export async function partitionCut(pool: pg.Pool): Promise<Granularity> {
  const { rows } = await pool.query<{ granularity: Granularity }>('select granularity from storage_partition_cut');
  return rows[0]!.granularity;
}

/**
 * Records `granularity` as the cut of months not yet created; returns the one it replaces (the same when
 * unchanged). Partitions that exist stay as they are (docs/decisions.md#partition-granularity).
 */
export async function recordPartitionCut(pool: pg.Pool, granularity: Granularity): Promise<Granularity> {
  const { rows } = await pool.query<{ before: Granularity }>(`
    with o as (select granularity from storage_partition_cut)
    update storage_partition_cut set granularity = $1, changed_at = case when granularity = $1 then changed_at else now() end
    returning (select granularity from o) as before`, [granularity]);
  return rows[0]!.before;
}

/** Days of check-ins measuredFleet averages over. */
const RATE_DAYS = 7;

/**
 * The fleet as stored: devices registered and their check-ins a device a day over the last RATE_DAYS days
 * (a range of the date index, pruned to those days' partitions), for recommendGranularity.
 */
export async function measuredFleet(pool: pg.Pool, nowMs: number = Date.now()): Promise<Fleet> {
  const { rows } = await pool.query<{ devices: number; checkins: number }>(`
    select (select count(*) from device_information) as devices,
           (select count(*) from device_records where "date" >= $1 and "date" < $2) as checkins`,
  [new Date(nowMs - RATE_DAYS * 86_400_000), new Date(nowMs)]);
  const { devices, checkins } = rows[0]!;
  return { devices, checkInsPerDevicePerDay: devices === 0 ? 0 : checkins / RATE_DAYS / devices };
}

export interface TimePartition {
  table: string;
  /** `YYYY-MM`: the month the partition lies in (every cut nests in one). */
  month: string;
  partition: string;
  /** Its range, epoch ms: from inclusive, until exclusive. */
  fromMs: number;
  untilMs: number;
  bytes: number;
}

/** Every time partition (not the default ones), oldest first. */
export async function timePartitions(pool: pg.Pool | pg.PoolClient): Promise<TimePartition[]> {
  const { rows } = await pool.query<{ parent: string; partition: string; lo: Date; hi: Date; bytes: string }>(
    'select parent, partition, lo, hi, pg_total_relation_size(partition::regclass) as bytes from fl_time_partitions()');
  return rows
    .map((r) => ({ table: r.parent, month: monthOfMs(r.lo.getTime()), partition: r.partition, fromMs: r.lo.getTime(), untilMs: r.hi.getTime(), bytes: Number(r.bytes) }))
    .sort((a, b) => a.fromMs - b.fromMs || a.table.localeCompare(b.table));
}

/** Months that rows in the default partitions belong to; creating them moves those rows out. */
export async function strayMonths(pool: pg.Pool): Promise<string[]> {
  const months = new Set<string>();
  for (const { table, timeColumn } of await partitionedTables(pool)) {
    const { rows } = await pool.query<{ month: string }>(`select distinct to_char("${timeColumn}" at time zone 'UTC', 'YYYY-MM') as month from "${table}_default"`);
    for (const r of rows) months.add(r.month);
  }
  return [...months].sort();
}

/** Moves every row of the default partitions into a partition of its month, for months that may be created. */
export async function adoptStrays(pool: pg.Pool, nowMs: number = Date.now()): Promise<string[]> {
  const months = (await strayMonths(pool)).filter((m) => mayCreateMonth(m, nowMs, MONTHS_AHEAD));
  for (const month of months) await pool.query('select fl_ensure_month($1::date)', [monthDate(month)]);
  return months;
}
