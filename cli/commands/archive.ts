// `faultline archive list` shows what retention archived; `faultline archive restore <file>...` loads archive
// files back into their tables (docs/decisions.md#storage-lifecycle), with progress.
import { isAbsolute, resolve } from 'node:path';
import { restoreFile } from '../../storage/archive.js';
import { openRuntime } from '../runtime.js';

export async function run(args: string[]): Promise<void> {
  const [action = 'list', ...files] = args;
  const runtime = await openRuntime();
  const say = (line: string) => process.stdout.write(`${line}\n`);
  try {
    if (action === 'list') {
      const { rows } = await runtime.pool.query<{ table_name: string; month: string; org: string | null; file: string; row_count: number; archived_at: Date; restored_at: Date | null }>(
        `select table_name, to_char(month, 'YYYY-MM') as month, "OrganizationID" as org, file, row_count, archived_at, restored_at from storage_archives order by month, table_name, id`);
      if (rows.length === 0) say('nothing archived');
      for (const r of rows) say(`${r.month} ${r.table_name}${r.org ? ` (organisation ${r.org})` : ''}: ${r.row_count} rows, ${r.file}, archived ${r.archived_at.toISOString()}${r.restored_at ? `, restored ${r.restored_at.toISOString()}` : ''}`);
    } else if (action === 'restore') {
      if (files.length === 0) throw new Error('archive restore <file.parquet>...: name the files (`faultline archive list` shows them)');
      for (const f of files) {
        const file = isAbsolute(f) ? f : resolve(f);
        let done = 0;
        const result = await restoreFile(runtime.pool, file, (n) => { done += n; say(`${file}: read ${done.toLocaleString('en')} rows`); });
        say(`${file}: ${result.table} ${result.month}${result.org ? ` (organisation ${result.org})` : ''}: ${result.inserted} of ${result.rows} rows restored${result.inserted < result.rows ? ` (${result.rows - result.inserted} were stored already)` : ''}`);
      }
    } else {
      throw new Error(`archive: unknown action "${action}" (list | restore <file>...)`);
    }
  } finally {
    await runtime.close();
  }
}
