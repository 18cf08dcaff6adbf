// docs/iec104.md section 5 lists every reason the IEC 104 station counts (iec104/diagnostics/reasons.ts), and
// only those, and names the route that shows the counts: a reason added later fails here until documented.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { IEC104_DIAGNOSTICS_PATH } from '../../api/iec104/endpoints.js';
import { REFUSAL_REASONS } from '../../iec104/diagnostics/reasons.js';

const doc = readFileSync(new URL('../../docs/iec104.md', import.meta.url), 'utf8');
const start = doc.indexOf('\n## 5. What the master did wrong\n');
const end = doc.indexOf('\n## ', start + 5);
const section = doc.slice(start, end < 0 ? undefined : end);

test('section 5 exists and names the route', () => {
  assert.ok(start >= 0, 'the section heading');
  assert.ok(section.includes(`\`GET ${IEC104_DIAGNOSTICS_PATH}\``), 'the route');
});

test('the table has one row per reason of REFUSAL_REASONS, and no other', () => {
  const rows = section.split('\n').filter((l) => /^\| `/.test(l)).map((l) => /^\| `([A-Za-z0-9]+)`/.exec(l)![1]!);
  assert.ok(rows.length > 0, 'rows read (the test can fail)');
  assert.equal([...rows].sort(), Object.keys(REFUSAL_REASONS).sort());
});

test.run();
