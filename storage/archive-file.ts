// One archive file: the rows of one table's month (or one organisation's share of it) as Parquet
// (hyparquet-writer / hyparquet, docs/decisions.md#storage-lifecycle), with the row count and a checksum.
// Values keep their exact stored form: bigint as INT64, timestamptz as INT64 microseconds (TIMESTAMP MICROS,
// UTC), double precision as DOUBLE, text as UTF-8, so a restore puts back the same bytes.
import { createHash } from 'node:crypto';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { fileWriter, ParquetWriter, type SchemaElement } from 'hyparquet-writer';

export type ColumnKind = 'int64' | 'int32' | 'double' | 'text' | 'bool' | 'timestamp';
export interface ArchiveColumn { name: string; kind: ColumnKind }
export type ArchiveValue = bigint | number | string | boolean | null;

/** The column kind of a PostgreSQL type name (information_schema data_type); anything else travels as text. */
export function kindOf(dataType: string): ColumnKind {
  switch (dataType) {
    case 'bigint': return 'int64';
    case 'integer': case 'smallint': return 'int32';
    case 'double precision': case 'real': return 'double';
    case 'boolean': return 'bool';
    case 'timestamp with time zone': return 'timestamp';
    default: return 'text';
  }
}

/** The Parquet schema element of a column (also the reliability export's, api/reliability/parquet-stream.ts). */
export function schemaElement({ name, kind }: ArchiveColumn): SchemaElement {
  const base = { name, repetition_type: 'OPTIONAL' } as const;
  switch (kind) {
    case 'int64': return { ...base, type: 'INT64' };
    case 'int32': return { ...base, type: 'INT32' };
    case 'double': return { ...base, type: 'DOUBLE' };
    case 'bool': return { ...base, type: 'BOOLEAN' };
    case 'timestamp': return { ...base, type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MICROS' } };
    case 'text': return { ...base, type: 'BYTE_ARRAY', converted_type: 'UTF8' };
  }
}

/**
 * Order-sensitive checksum of rows: SHA-256 over one JSON line per row. The same function runs over the rows
 * read from PostgreSQL and over the rows read back from the file, so the two agree only if every value does.
 */
export class RowChecksum {
  private readonly hash = createHash('sha256');
  rows = 0;
  add(row: readonly ArchiveValue[]): void {
    this.hash.update(JSON.stringify(row, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) + '\n');
    this.rows++;
  }
  digest(): string { return this.hash.digest('hex'); }
}

/** Writes row chunks (arrays of row arrays) to `file` as they come; returns count and checksum of what it wrote. */
export class ArchiveWriter {
  private readonly writer: ParquetWriter;
  private readonly sum = new RowChecksum();
  constructor(file: string, private readonly columns: readonly ArchiveColumn[], metadata: Record<string, string>) {
    this.writer = new ParquetWriter({
      writer: fileWriter(file),
      schema: [{ name: 'root', num_children: columns.length }, ...columns.map(schemaElement)],
      kvMetadata: Object.entries(metadata).map(([key, value]) => ({ key, value })),
      createdBy: 'faultline archive',
    });
  }

  async write(rows: readonly (readonly ArchiveValue[])[]): Promise<void> {
    if (rows.length === 0) return;
    for (const r of rows) this.sum.add(r);
    const columnData = this.columns.map((c, i) => ({ name: c.name, data: rows.map((r) => r[i] ?? null) as never }));
    await this.writer.write({ columnData, rowGroupSize: rows.length });
  }

  async finish(): Promise<{ rows: number; checksum: string }> {
    await this.writer.finish();
    return { rows: this.sum.rows, checksum: this.sum.digest() };
  }
}

const RAW_TIMESTAMPS = { timestampFromMicroseconds: (micros: bigint) => micros, timestampFromMilliseconds: (ms: bigint) => ms * 1000n };

/** Column names and the metadata written with the file. */
export async function readArchiveHeader(file: string): Promise<{ columns: string[]; rows: number; metadata: Record<string, string> }> {
  const buffer = await asyncBufferFromFile(file);
  const meta = await parquetMetadataAsync(buffer);
  return {
    columns: meta.schema.slice(1).map((s) => s.name),
    rows: Number(meta.num_rows),
    metadata: Object.fromEntries((meta.key_value_metadata ?? []).map((kv) => [kv.key, kv.value ?? ''])),
  };
}

/** Reads the file back in chunks of `chunkRows`, in file order; values as ArchiveWriter took them. */
export async function* readArchiveRows(file: string, chunkRows = 20_000): AsyncGenerator<ArchiveValue[][]> {
  const buffer = await asyncBufferFromFile(file);
  const metadata = await parquetMetadataAsync(buffer);
  const total = Number(metadata.num_rows);
  const columns = metadata.schema.slice(1).map((s) => s.name);
  for (let start = 0; start < total; start += chunkRows) {
    const objects = await parquetReadObjects({ file: buffer, metadata, rowStart: start, rowEnd: Math.min(total, start + chunkRows), parsers: RAW_TIMESTAMPS, utf8: true });
    yield objects.map((o) => columns.map((c) => (o[c] === undefined ? null : (o[c] as ArchiveValue))));
  }
}

/** Count and checksum of the file's rows, read back from disk. */
export async function verifyArchiveFile(file: string): Promise<{ rows: number; checksum: string }> {
  const sum = new RowChecksum();
  for await (const chunk of readArchiveRows(file)) for (const row of chunk) sum.add(row);
  return { rows: sum.rows, checksum: sum.digest() };
}
