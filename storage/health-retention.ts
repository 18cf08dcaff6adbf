// Retention of the fleet health tables (docs/decisions.md#fleet-api-issue-44-fleet-api): a device's daily
// health rows (device_health_days, migration 0033) are kept at least HEALTH_MIN_MONTHS months and never less
// than its organisation's RetentionMonths (null keeps everything), counted in whole months like raw-data
// retention (domain/storage-months.ts firstKeptMonth); a day of a device no organisation holds keeps the
// minimum; what a removed day counted for the battery forecast is carried (device_health_carried, migration
// 0045). The fleet worker's rows (device_health, device_silence, device_drift, migration 0034) of a deleted
// or unknown device go. Deleted in bounded batches, each its own statement, with progress; one process at a time.
import type pg from 'pg';
import { firstKeptMonth, monthDate } from '../domain/storage-months.js';

const HEALTH_RETENTION_LOCK = 0x666c6872; // "flhr"
/** Months of daily health kept whatever the organisation keeps of its raw data. */
export const HEALTH_MIN_MONTHS = 36;
/** Rows a delete statement removes at most: short locks, bounded WAL per statement. */
export const HEALTH_DELETE_BATCH = 10_000;

export interface HealthRetentionReport {
  skipped: boolean;
  /** device_health_days rows removed. */
  days: number;
  /** device_health, device_silence and device_drift rows removed (deleted or unknown devices). */
  assessments: number;
}

/** The first day (YYYY-MM-DD) an organisation keeping `retentionMonths` keeps of its daily health at `now`; null: everything. */
export function firstKeptHealthDay(retentionMonths: number | null, now: number): string | null {
  const month = firstKeptMonth(retentionMonths === null ? null : Math.max(HEALTH_MIN_MONTHS, retentionMonths), now);
  return month === null ? null : monthDate(month);
}

/**
 * Deletes the day rows `which` selects (IMEINumber, day) and, in the same statement, adds their check-ins and
 * connection seconds to each device's device_health_carried row (migration 0045): the battery forecast's charge
 * spent counts from the first day ever, and a cell outlives the days kept. One statement, so a crash or a reader
 * (the assess step) sees the days either still here or carried, never neither nor both.
 */
const carried = (which: string) => `
  with gone as (
    delete from device_health_days where ("IMEINumber", day) in (${which})
    returning "IMEINumber", day, received, connect_time_sum),
  sums as (
    select "IMEINumber", min(day) as first_day, max(day) as through_day, sum(received)::bigint as messages, sum(connect_time_sum) as connect_seconds
      from gone group by 1),
  kept as (
    insert into device_health_carried ("IMEINumber", first_day, through_day, messages, connect_seconds)
    select * from sums order by 1
    on conflict ("IMEINumber") do update set
      first_day = least(device_health_carried.first_day, excluded.first_day), through_day = greatest(device_health_carried.through_day, excluded.through_day),
      messages = device_health_carried.messages + excluded.messages, connect_seconds = device_health_carried.connect_seconds + excluded.connect_seconds)
  select count(*)::int as n from gone`;

async function inBatches(pool: pg.Pool, sql: string, values: unknown[]): Promise<number> {
  let total = 0;
  for (;;) {
    const n = (await pool.query<{ n: number }>(sql, values)).rows[0]!.n;
    total += n;
    if (n < HEALTH_DELETE_BATCH) return total;
  }
}

export async function runHealthRetention(pool: pg.Pool, { now = Date.now(), progress = () => {} }: { now?: number; progress?: (line: string) => void } = {}): Promise<HealthRetentionReport> {
  const lock = await pool.connect();
  try {
    const { rows } = await lock.query<{ ok: boolean }>('select pg_try_advisory_lock($1) as ok', [HEALTH_RETENTION_LOCK]);
    if (!rows[0]!.ok) {
      progress('fleet health: another process is running its retention; skipped');
      return { skipped: true, days: 0, assessments: 0 };
    }
    try {
      let days = 0;
      const { rows: orgs } = await pool.query<{ id: string; months: number | null }>('select "OrganizationID" as id, "RetentionMonths" as months from organizations order by 1');
      for (const org of orgs) {
        const first = firstKeptHealthDay(org.months, now);
        if (first === null) continue;
        const n = await inBatches(pool, carried(`select x."IMEINumber", x.day from device_health_days x join device_information d on d."IMEINumber" = x."IMEINumber"
             where d."OrganizationID" = $1 and x.day < $2::date limit ${HEALTH_DELETE_BATCH}`), [org.id, first]);
        days += n;
        progress(`fleet health: organisation ${org.id} keeps days from ${first}; ${n.toLocaleString('en')} day rows removed`);
      }
      const orphanFirst = firstKeptHealthDay(HEALTH_MIN_MONTHS, now)!;
      const orphans = await inBatches(pool, carried(`select x."IMEINumber", x.day from device_health_days x where x.day < $1::date
             and not exists (select 1 from device_information d where d."IMEINumber" = x."IMEINumber") limit ${HEALTH_DELETE_BATCH}`), [orphanFirst]);
      if (orphans) progress(`fleet health: ${orphans.toLocaleString('en')} day rows of devices no organisation holds removed (before ${orphanFirst})`);
      days += orphans;
      let assessments = 0;
      for (const table of ['device_health', 'device_silence', 'device_drift']) {
        const { rowCount } = await pool.query(`delete from ${table} x where not exists (
            select 1 from device_information d where d."IMEINumber" = x."IMEINumber" and d.deleted_at is null)`);
        assessments += rowCount ?? 0;
        if (rowCount) progress(`fleet health: ${rowCount} ${table} rows of deleted devices removed`);
      }
      return { skipped: false, days, assessments };
    } finally {
      await lock.query('select pg_advisory_unlock($1)', [HEALTH_RETENTION_LOCK]);
    }
  } finally {
    lock.release();
  }
}
