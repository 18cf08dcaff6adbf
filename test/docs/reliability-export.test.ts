// docs/reliability-export.md lists every column of the export with its type and rule, in order, exactly as
// api/reliability/export-columns.ts makes them (the CSV header and the Parquet schema come from there too).
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { docsRow, EXPORT_COLUMNS } from '../../api/reliability/export-columns.js';

const page = readFileSync(new URL('../../docs/reliability-export.md', import.meta.url), 'utf8');

test('the page\'s column table is the export\'s columns, in order, with their types and rules', () => {
  const section = page.slice(page.indexOf('\n## Columns\n'), page.indexOf('\n## Causes\n'));
  const rows = section.split('\n').filter((l) => l.startsWith('| `'));
  assert.equal(rows, EXPORT_COLUMNS.map(docsRow));
});

test.run();
