// docs/iec104.md section 6 holds the interoperability list generated for an integration with nothing set; it
// must be the generator's output (iec104/profile/docs-copy.ts), so the documented list is the station's.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyIn, defaultListMarkdown, withCopy } from '../../iec104/profile/docs-copy.js';

const doc = readFileSync(new URL('../../docs/iec104.md', import.meta.url), 'utf8');

test('docs/iec104.md holds the generated interoperability list, unedited', () => {
  const copy = copyIn(doc);
  assert.ok(copy !== undefined, 'docs/iec104.md has the interoperability list markers');
  assert.ok(copy === defaultListMarkdown().trim(), 'docs/iec104.md section 6 differs from the generated interoperability list: run `npm run generate:iec104` and commit docs/iec104.md');
});

test('the check can fail: an edited copy differs, and regenerating restores it', () => {
  const edited = doc.replace('| [X] | <36> M_ME_TF_1 |', '| [ ] | <36> M_ME_TF_1 |');
  assert.not.equal(edited, doc);
  assert.not.ok(copyIn(edited) === defaultListMarkdown().trim());
  assert.is(copyIn(withCopy(edited)), defaultListMarkdown().trim());
});

test.run();
