// Retention with archive (docs/decisions.md#storage-lifecycle): each organisation keeps RetentionMonths
// months (null: everything). A month every organisation has expired goes whole: archived to one file, verified
// (row count and checksum read back from disk), then its partitions are dropped (one, or the month's pieces at
// a finer cut: docs/decisions.md#partition-granularity). A month only some organisations
// have expired loses just their rows: archived to a file per organisation, verified, then deleted.
// One process at a time runs it (a session advisory lock); others skip.
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { FAULT_EVENT_TYPES } from '../domain/fault-events.js';
import { expired, firstKeptMonth, monthDate } from '../domain/storage-months.js';
import { exportUnit, unitCondition, type ArchiveUnit } from './archive.js';
import { verifyArchiveFile } from './archive-file.js';
import { fillNewest, forgetNewest } from './newest-rows.js';
import { partitionedTables, timePartitions } from './partitions.js';
import { withTransaction } from '../db/transaction.js';

const RETENTION_LOCK = 0x666c7274; // "flrt"

export interface RetentionStep extends ArchiveUnit {
  /** drop: the month's partitions; delete: one organisation's rows. */
  action: 'drop' | 'delete';
  /** The table's partitions of the month: one at the month cut, its pieces at a finer one. */
  partitions: string[];
  /** Rows the step removes (counted when planned). */
  rows: number;
}

export interface RetentionOptions {
  archiveDir: string;
  now?: number;
  dryRun?: boolean;
  progress?: (line: string) => void;
}

export interface RetentionReport {
  /** Another process held the lock: nothing was done. */
  skipped: boolean;
  steps: (RetentionStep & { file: string | null; checksum: string | null })[];
}

/** Rows the partitions hold together. */
async function countRows(db: pg.Pool | pg.PoolClient, partitions: readonly string[]): Promise<number> {
  const { rows } = await db.query<{ n: string }>(`select (${partitions.map((p) => `(select count(*) from "${p}")`).join(' + ')}) as n`);
  return Number(rows[0]!.n);
}

/** What retention would remove now, oldest month first. */
export async function planRetention(pool: pg.Pool, now = Date.now()): Promise<RetentionStep[]> {
  const { rows: orgs } = await pool.query<{ id: string; months: number | null }>('select "OrganizationID" as id, "RetentionMonths" as months from organizations order by 1');
  const kept = orgs.map((o) => ({ id: o.id, firstKept: firstKeptMonth(o.months, now) }));
  const columns = new Map((await partitionedTables(pool)).map((t) => [t.table, t.timeColumn]));
  const months = new Map<string, { table: string; month: string; partitions: string[] }>();
  for (const p of await timePartitions(pool)) {
    const key = `${p.table} ${p.month}`;
    if (!months.has(key)) months.set(key, { table: p.table, month: p.month, partitions: [] });
    months.get(key)!.partitions.push(p.partition);
  }
  const steps: RetentionStep[] = [];
  for (const { table, month, partitions } of months.values()) {
    const timeColumn = columns.get(table)!;
    if (kept.length > 0 && kept.every((o) => expired(month, o.firstKept))) {
      steps.push({ action: 'drop', table, timeColumn, month, org: null, partitions, rows: await countRows(pool, partitions) });
      continue;
    }
    for (const o of kept.filter((k) => expired(month, k.firstKept))) {
      const unit: ArchiveUnit = { table, timeColumn, month, org: o.id };
      const where = unitCondition(unit);
      const { rows } = await pool.query<{ n: string }>(`select count(*) as n from "${table}" where ${where.sql}`, where.values);
      if (Number(rows[0]!.n) > 0) steps.push({ action: 'delete', ...unit, partitions, rows: Number(rows[0]!.n) });
    }
  }
  return steps;
}

/** `<dir>/<table>/<YYYY-MM>[.org-<id>][.<n>].parquet`: a later archive of the same unit (late rows) gets the next n. */
function archivePath(dir: string, unit: ArchiveUnit): string {
  const base = join(dir, unit.table, `${unit.month}${unit.org === null ? '' : `.org-${encodeURIComponent(unit.org)}`}`);
  let file = `${base}.parquet`;
  for (let n = 2; existsSync(file); n++) file = `${base}.${n}.parquet`;
  return file;
}

// The counter of device_read_counts (migrations 0004, 0053) that counts every row of a table.
const COUNTED: Record<string, string> = { device_records: 'records', device_currents: 'currents' };

// Counters of migrations 0004, 0051 and 0053 that a dropped partition's rows were counted in (a DROP fires no trigger).
async function uncount(client: pg.PoolClient, step: RetentionStep, partition: string): Promise<void> {
  const counted = COUNTED[step.table];
  if (counted) {
    await client.query(`update device_read_counts c set ${counted} = c.${counted} - x.n
      from (select "IMEINumber", count(*) as n from "${partition}" group by 1) x where c."IMEINumber" = x."IMEINumber"`);
  } else if (step.table === 'event_records' || step.table === 'dm1_event_records') {
    await client.query(`update device_read_counts c set critical_events = c.critical_events - x.critical, events = c.events - x.n
      from (select "IMEINumber", count(*) filter (where "EventType" = any($1::text[])) as critical, count(*) as n from "${partition}" group by 1) x
     where c."IMEINumber" = x."IMEINumber"`, [FAULT_EVENT_TYPES]);
    // Migration 0051's months: the partition's rows by month of the partition key, as its trigger counts them (a row
    // left with none goes in forgetEmptyMonths, after the step).
    await client.query(`update critical_event_months c set events = c.events - x.n
      from (select date_trunc('month', "ReportedEventTimestamp" at time zone 'UTC')::date as month, "IMEINumber", count(*) as n
              from "${partition}" where "EventType" = any($1::text[]) group by 1, 2) x
     where c.source = $2 and c.month = x.month and c."IMEINumber" = x."IMEINumber"`, [FAULT_EVENT_TYPES, MONTHS_SOURCE[step.table]]);
  }
}

// Migration 0051's source of each event table.
const MONTHS_SOURCE: Record<string, string> = { event_records: 'event', dm1_event_records: 'dm1_event' };

// Rows of migration 0051's months the step left without an event go, whether a drop uncounted them (uncount) or one
// organisation's delete counted them down through the trigger: else each expired month kept a row per device that
// had events in it for ever (a wide range's look at the table steps over them, oldest month first).
async function forgetEmptyMonths(client: pg.PoolClient, step: RetentionStep): Promise<void> {
  const source = MONTHS_SOURCE[step.table];
  if (source) await client.query('delete from critical_event_months where source = $1 and month = $2::date and events <= 0', [source, monthDate(step.month)]);
}

/** Removes the step's rows if they are exactly the `rows` archived; else changes nothing and says why. */
async function remove(pool: pg.Pool, step: RetentionStep, archived: { rows: number; checksum: string }, file: string | null): Promise<void> {
  // Wait briefly for the lock rather than queue every reader behind a drop (the next run tries again).
  await withTransaction(pool, async (client) => {
    const where = unitCondition(step);
    const partitions = step.partitions.map((p) => `"${p}"`).join(', ');
    // The step's devices' counter rows first, in IMEI order, as every writer of them takes them (its first statement's
    // counting trigger) before anything it reads of the month: a batch holding a device's row while it fills the device's
    // newest rows from every partition (storage/newest-rows.ts) waited for this step's lock on the month while this step
    // waited for that row (the review's deadlock). A row written meanwhile is caught by the counts below.
    await client.query(`select 1 from device_read_counts c where c."IMEINumber" in (select "IMEINumber" from "${step.table}" where ${where.sql})
      order by c."IMEINumber" for no key update`, where.values);
    if (step.action === 'drop') {
      await client.query(`lock table ${partitions} in access exclusive mode`);
      const now = await countRows(client, step.partitions);
      if (now !== archived.rows) throw new Error(`${step.table} ${step.month}: ${now} rows now, ${archived.rows} archived; rows arrived meanwhile, the next run archives them`);
      const thinned: string[] = [];
      for (const partition of step.partitions) {
        await uncount(client, step, partition);
        thinned.push(...await forgetNewest(client, step.table, partition));
        await client.query(`drop table "${partition}"`);
      }
      await fillNewest(client, step.table, thinned);
    } else {
      // No writer may add rows of this month between the count and the delete.
      await client.query(`lock table ${partitions} in share row exclusive mode`);
      const { rowCount } = await client.query(`delete from "${step.table}" where ${where.sql}`, where.values);
      if (rowCount !== archived.rows) throw new Error(`${step.table} ${step.month} of ${step.org}: ${rowCount} rows to delete, ${archived.rows} archived; rows arrived meanwhile, the next run archives them`);
    }
    await forgetEmptyMonths(client, step);
    if (file) {
      await client.query(`insert into storage_archives (table_name, month, "OrganizationID", file, row_count, checksum) values ($1, $2::date, $3, $4, $5, $6)`,
        [step.table, monthDate(step.month), step.org, file, archived.rows, archived.checksum]);
    }
  }, { lockTimeoutMs: 10_000 });
}

const dropped = (step: RetentionStep) => (step.partitions.length === 1 ? `partition ${step.partitions[0]}` : `${step.partitions.length} partitions (${step.partitions[0]} ...)`);

async function runStep(pool: pg.Pool, step: RetentionStep, archiveDir: string, progress: (line: string) => void): Promise<{ file: string | null; checksum: string | null }> {
  const label = `${step.table} ${step.month}${step.org === null ? '' : ` (organisation ${step.org})`}`;
  if (step.rows === 0 && step.action === 'drop') {
    await remove(pool, step, { rows: 0, checksum: '' }, null);
    progress(`${label}: empty ${dropped(step)} dropped`);
    return { file: null, checksum: null };
  }
  const file = archivePath(archiveDir, step);
  mkdirSync(join(archiveDir, step.table), { recursive: true });
  const partial = `${file}.partial`;
  let done = 0, shown = 0;
  const written = await exportUnit(pool, step, partial, (n) => {
    done += n;
    if (done - shown >= 100_000) { shown = done; progress(`${label}: archived ${done.toLocaleString('en')} of ~${step.rows.toLocaleString('en')} rows`); }
  });
  const read = await verifyArchiveFile(partial);
  if (read.rows !== written.rows || read.checksum !== written.checksum) {
    rmSync(partial, { force: true });
    throw new Error(`${label}: the file read back (${read.rows} rows, ${read.checksum}) differs from what was written (${written.rows}, ${written.checksum}); nothing removed`);
  }
  renameSync(partial, file);
  progress(`${label}: ${written.rows.toLocaleString('en')} rows in ${file}, verified (sha256 ${written.checksum.slice(0, 16)}...)`);
  try {
    await remove(pool, step, written, file);
  } catch (err) {
    // The data stays in the database; the file is a harmless extra copy, replaced by the next run's.
    rmSync(file, { force: true });
    throw err;
  }
  progress(`${label}: ${step.action === 'drop' ? `${dropped(step)} dropped` : `${written.rows.toLocaleString('en')} rows deleted`}`);
  return { file, checksum: written.checksum };
}

/**
 * Plans and carries out retention. Steps that fail (a lock not granted in time, rows arriving while a month
 * was archived) are reported and left for the next run; the others go on.
 */
export async function runRetention(pool: pg.Pool, { archiveDir, now = Date.now(), dryRun = false, progress = () => {} }: RetentionOptions): Promise<RetentionReport & { failed: string[] }> {
  const lock = await pool.connect();
  try {
    const { rows } = await lock.query<{ ok: boolean }>('select pg_try_advisory_lock($1) as ok', [RETENTION_LOCK]);
    if (!rows[0]!.ok) {
      progress('another process is running retention; skipped');
      return { skipped: true, steps: [], failed: [] };
    }
    try {
      const plan = await planRetention(pool, now);
      progress(plan.length === 0 ? 'nothing to remove' : `${plan.length} step(s): ${plan.map((s) => `${s.action} ${s.table} ${s.month}${s.org ? ` (${s.org})` : ''} ${s.rows} rows`).join('; ')}`);
      const steps: RetentionReport['steps'] = [];
      const failed: string[] = [];
      for (const step of plan) {
        if (dryRun) { steps.push({ ...step, file: null, checksum: null }); continue; }
        try {
          steps.push({ ...step, ...(await runStep(pool, step, archiveDir, progress)) });
        } catch (err) {
          const message = `${step.table} ${step.month}${step.org ? ` (${step.org})` : ''}: ${(err as Error).message}`;
          failed.push(message);
          progress(`failed: ${message}`);
        }
      }
      return { skipped: false, steps, failed };
    } finally {
      await lock.query('select pg_advisory_unlock($1)', [RETENTION_LOCK]);
    }
  } finally {
    lock.release();
  }
}
