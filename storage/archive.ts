// Archive files to and from PostgreSQL (docs/decisions.md#storage-lifecycle): export the rows of one table's
// month, or one organisation's share of it, in primary-key order from one snapshot; load a file back.
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { monthBounds, monthDate } from '../domain/storage-months.js';
import { toCsv } from '../plumbing/csv.js';
import type { Cell } from '../plumbing/csv.js';
import { ArchiveWriter, kindOf, readArchiveHeader, readArchiveRows, type ArchiveColumn, type ArchiveValue } from './archive-file.js';
import { withTransaction } from '../db/transaction.js';

const q = (name: string) => `"${name.replaceAll('"', '""')}"`;
const CHUNK_ROWS = 20_000;

/** What one archive file holds. org null: every row of the month. */
export interface ArchiveUnit { table: string; timeColumn: string; month: string; org: string | null }

export async function archiveColumns(db: pg.Pool | pg.PoolClient, table: string): Promise<ArchiveColumn[]> {
  const { rows } = await db.query<{ column_name: string; data_type: string }>(
    `select column_name, data_type from information_schema.columns where table_schema = 'public' and table_name = $1 order by ordinal_position`, [table]);
  return rows.map((r) => ({ name: r.column_name, kind: kindOf(r.data_type) }));
}

async function primaryKey(db: pg.Pool | pg.PoolClient, table: string): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(`
    select a.attname as name from pg_index i
      join lateral unnest(i.indkey) with ordinality k(attnum, n) on true
      join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
     where i.indrelid = $1::regclass and i.indisprimary order by k.n`, [table]);
  return rows.map((r) => r.name);
}

// Exact forms: int8 and timestamptz (as microseconds since the epoch) travel as text and become BigInt.
function selectItem({ name, kind }: ArchiveColumn): string {
  if (kind === 'timestamp') return `((extract(epoch from ${q(name)}) * 1000000)::bigint)::text as ${q(name)}`;
  if (kind === 'int64') return `${q(name)}::text as ${q(name)}`;
  if (kind === 'text') return `${q(name)}::text as ${q(name)}`;
  return q(name);
}

function fromDb(columns: readonly ArchiveColumn[], row: Record<string, unknown>): ArchiveValue[] {
  return columns.map(({ name, kind }) => {
    const v = row[name];
    if (v === null || v === undefined) return null;
    return kind === 'int64' || kind === 'timestamp' ? BigInt(v as string) : (v as ArchiveValue);
  });
}

/** The SQL condition selecting a unit's rows from its table, with its values. */
export function unitCondition(unit: ArchiveUnit, first = 1): { sql: string; values: unknown[] } {
  const { fromMs, untilMs } = monthBounds(unit.month);
  const range = `${q(unit.timeColumn)} >= $${first}::timestamptz and ${q(unit.timeColumn)} < $${first + 1}::timestamptz`;
  const values: unknown[] = [new Date(fromMs), new Date(untilMs)];
  if (unit.org === null) return { sql: range, values };
  values.push(unit.org);
  return { sql: `${range} and "IMEINumber" in (select "IMEINumber" from device_information where "OrganizationID" = $${first + 2})`, values };
}

/**
 * Writes the unit's rows to `file` from one consistent snapshot; returns what it wrote. The file is fsynced
 * before this returns, so a drop after it never outlives its archive.
 */
export async function exportUnit(pool: pg.Pool, unit: ArchiveUnit, file: string, onRows: (n: number) => void = () => {}): Promise<{ rows: number; checksum: string }> {
  const columns = await archiveColumns(pool, unit.table);
  const order = (await primaryKey(pool, unit.table)).map(q).join(', ');
  const writer = new ArchiveWriter(file, columns, { 'faultline.table': unit.table, 'faultline.month': unit.month, 'faultline.organization': unit.org ?? '' });
  await withTransaction(pool, async (client) => {
    const where = unitCondition(unit);
    await client.query(`declare fl_archive no scroll cursor for select ${columns.map(selectItem).join(', ')} from ${q(unit.table)} where ${where.sql} order by ${order}`, where.values);
    for (;;) {
      const { rows } = await client.query(`fetch ${CHUNK_ROWS} from fl_archive`);
      if (rows.length === 0) break;
      await writer.write(rows.map((r: Record<string, unknown>) => fromDb(columns, r)));
      onRows(rows.length);
    }
  }, { isolation: 'repeatable read', readOnly: true });
  const result = await writer.finish();
  const fd = openSync(file, 'r');
  try { fsyncSync(fd); } finally { closeSync(fd); }
  return result;
}

/** Microseconds since the epoch as ISO 8601 with six fraction digits, which PostgreSQL reads exactly. */
export function microsToIso(micros: bigint): string {
  const seconds = micros / 1_000_000n - (micros % 1_000_000n < 0n ? 1n : 0n);
  const fraction = micros - seconds * 1_000_000n;
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}.${fraction.toString().padStart(6, '0')}Z`;
}

function toCell(kind: ArchiveColumn['kind'], v: ArchiveValue): Cell {
  if (v === null) return null;
  if (kind === 'timestamp') return microsToIso(v as bigint);
  if (typeof v === 'bigint') return v.toString();
  return v;
}

export interface RestoreResult { table: string; month: string; org: string | null; rows: number; inserted: number }

/**
 * Loads an archive file back into its table: the month's partition is created if retention dropped it,
 * rows keep their identities, and rows still stored are left alone (ON CONFLICT DO NOTHING), so restoring
 * twice changes nothing.
 */
export async function restoreFile(pool: pg.Pool, file: string, onRows: (n: number) => void = () => {}): Promise<RestoreResult> {
  const header = await readArchiveHeader(file);
  const table = header.metadata['faultline.table'], month = header.metadata['faultline.month'];
  if (!table || !month) throw new Error(`${file} is not a faultline archive (no faultline.table / faultline.month metadata)`);
  const known = await archiveColumns(pool, table);
  if (known.length === 0) throw new Error(`${file}: table ${table} does not exist`);
  const kinds = new Map(known.map((c) => [c.name, c.kind]));
  const missing = header.columns.filter((c) => !kinds.has(c));
  if (missing.length) throw new Error(`${file}: columns ${missing.join(', ')} are not in ${table}`);
  await pool.query('select fl_ensure_month($1::date)', [monthDate(month)]);
  const cols = header.columns.map(q).join(', ');
  return withTransaction(pool, async (client) => {
    await client.query(`create temp table fl_restore (like ${q(table)}) on commit drop`);
    for await (const chunk of readArchiveRows(file, CHUNK_ROWS)) {
      const rows = chunk.map((r) => r.map((v, i) => toCell(kinds.get(header.columns[i]!)!, v)));
      await pipeline(Readable.from([toCsv(rows)]), client.query(copyFrom(`copy fl_restore (${cols}) from stdin with (format csv)`)));
      onRows(chunk.length);
    }
    const { rowCount } = await client.query(`insert into ${q(table)} (${cols}) overriding system value select ${cols} from fl_restore on conflict do nothing`);
    await client.query('update storage_archives set restored_at = now() where file = $1', [file]);
    return { table, month, org: header.metadata['faultline.organization'] || null, rows: header.rows, inserted: rowCount ?? 0 };
  });
}
