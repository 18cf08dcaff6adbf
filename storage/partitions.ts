// The month partitions of the device-data tables (migration 0008, docs/decisions.md#storage-lifecycle).
// The service creates them itself: MONTHS_AHEAD in advance (storage/maintenance.ts) and on demand for any
// month a batch brings (persist). A row whose month has no partition still lands in the table's default
// partition and is moved out when its month is created (fl_ensure_month), so nothing is refused. Months far
// from now (domain/storage-months.ts mayCreateMonth) are never created from device data: their rows stay in
// the default partition (docs/decisions.md#hostile-callers).
import type pg from 'pg';
import { log } from '../config/log.js';
import { mayCreateMonth, monthDate, monthOfTimestamp } from '../domain/storage-months.js';
import type { ComputedCheckIn } from '../schemas/avro/values.js';

/** Months after the current one that always exist, so ordinary traffic never waits on DDL. */
export const MONTHS_AHEAD = 3;

// Months this process knows exist, per pool. A month that retention dropped meanwhile is not forgotten here:
// its late rows go to the default partition and the next maintenance run moves them out.
const known = new WeakMap<pg.Pool, Set<string>>();

/**
 * Creates the partitions of every month in `months` that this process has not seen and that may be created
 * (mayCreateMonth); returns how many it made. Months outside are left to the default partition.
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

export interface MonthPartition { table: string; month: string; partition: string; bytes: number }

/** Every month partition (not the default ones), oldest first. */
export async function monthPartitions(pool: pg.Pool | pg.PoolClient): Promise<MonthPartition[]> {
  const { rows } = await pool.query<{ parent: string; partition: string; bytes: string }>(`
    select p.relname as parent, c.relname as partition, pg_total_relation_size(c.oid) as bytes
      from storage_partitioned_tables t
      join pg_class p on p.relname = t.table_name and p.relnamespace = 'public'::regnamespace
      join pg_inherits i on i.inhparent = p.oid
      join pg_class c on c.oid = i.inhrelid
     where c.relname ~ '_p[0-9]{6}$'`);
  return rows
    .map((r) => { const d = r.partition.slice(-6); return { table: r.parent, month: `${d.slice(0, 4)}-${d.slice(4)}`, partition: r.partition, bytes: Number(r.bytes) }; })
    .sort((a, b) => a.month.localeCompare(b.month) || a.table.localeCompare(b.table));
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
