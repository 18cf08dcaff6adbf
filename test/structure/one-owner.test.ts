// Facts with one owner, held by reading the whole production tree (docs/architecture.md): a second writer
// added anywhere later fails here without anyone naming its file.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { productionSources as productionFiles, root } from './production-sources.js';

const test = suite('one owner');

/** Files whose text matches `pattern`, apart from `owner`. */
function othersMatching(pattern: RegExp, owner: string): string[] {
  return productionFiles().filter((f) => f !== owner && pattern.test(readFileSync(join(root, f), 'utf8')));
}

test('MultiSpeak outbox rows are written by enqueue() alone (multispeak/delivery/outbox.ts)', () => {
  assert.equal(othersMatching(/insert\s+into\s+outbox\b/i, 'multispeak/delivery/outbox.ts'), []);
});

test('the portal formats times in portal/src/time.ts alone (one clock, one format family, to the second)', () => {
  const portal = productionFiles().filter((f) => f.startsWith('portal/src/') && f !== 'portal/src/time.ts');
  assert.equal(portal.filter((f) => /toLocale(Date|Time)String|Intl\.DateTimeFormat|formatDisplayTime\b/.test(readFileSync(join(root, f), 'utf8'))), []);
});

test('an unknown query parameter is refused by api/errors.ts alone (acceptOnly, unknownParameter: one rule, one wording)', () => {
  assert.equal(othersMatching(/new ApiError\(\s*'UNKNOWN_PARAMETER'/, 'api/errors.ts'), []);
});

test.run();
