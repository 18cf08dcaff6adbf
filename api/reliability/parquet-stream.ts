// A Parquet file written as a stream of byte chunks (the reliability export, docs/reliability-export.md): each
// batch of rows becomes one row group, whose bytes leave at once, so a year of incidents is never held whole.
// The column types are the archive's (storage/archive-file.ts), so both files read the same in any reader.
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { schemaElement, type ArchiveColumn, type ArchiveValue } from '../../storage/archive-file.js';

/** A ByteWriter whose written bytes are taken out after each row group; `offset` keeps counting the whole file. */
class ChunkWriter extends ByteWriter {
  take(): Uint8Array {
    const chunk = new Uint8Array(this.buffer.slice(0, this.index));
    this.index = 0;
    return chunk;
  }
}

/**
 * The file's bytes, chunk by chunk, from batches of rows (arrays in column order; timestamps as bigint
 * microseconds). An empty source still gives a valid file with its columns and no rows.
 */
export async function* parquetChunks(columns: readonly ArchiveColumn[], batches: AsyncIterable<readonly (readonly ArchiveValue[])[]>, metadata: Record<string, string>): AsyncGenerator<Uint8Array> {
  const out = new ChunkWriter();
  const writer = new ParquetWriter({
    writer: out,
    schema: [{ name: 'root', num_children: columns.length }, ...columns.map(schemaElement)],
    kvMetadata: Object.entries(metadata).map(([key, value]) => ({ key, value })),
    createdBy: 'faultline reliability export',
  });
  for await (const rows of batches) {
    if (rows.length === 0) continue;
    await writer.write({ columnData: columns.map((c, i) => ({ name: c.name, data: rows.map((r) => r[i] ?? null) as never })), rowGroupSize: rows.length });
    yield out.take();
  }
  await writer.finish();
  yield out.take();
}
