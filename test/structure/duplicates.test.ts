// Code written once where it matters most (issue 46; docs/decisions.md#duplicates-found-by-a-test): no run of six
// or more lines shared between two API routers, between dnp3/ and iec104/, or between two plumbing files. Exact
// copies: none allowed. Copies of the same shape with other names and values (a looser reading): the list below,
// committed, so a new one fails until it is written once or, being boilerplate, added here with why.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { describeDuplicate, findDuplicates, type Likeness } from '../../support/duplicates.js';
import { isRouter, read, tsFiles } from './api-routers.js';

const test = suite('duplicates');
const root = new URL('../..', import.meta.url).pathname;
const texts = (files: readonly string[]) => new Map(files.map((f) => [f, read(root, f)]));
const folder = (f: string) => f.split('/')[0];

const SCOPES: Record<string, { files: () => string[]; paired: (a: string, b: string) => boolean }> = {
  'API routers': { files: () => tsFiles(root, 'api').filter((f) => isRouter(read(root, f))), paired: () => true },
  'dnp3/ and iec104/': { files: () => [...tsFiles(root, 'dnp3'), ...tsFiles(root, 'iec104')], paired: (a, b) => folder(a) !== folder(b) },
  'plumbing files': { files: () => tsFiles(root, 'plumbing'), paired: () => true },
};

const found = (scope: string, likeness: Likeness) => findDuplicates(texts(SCOPES[scope]!.files()), SCOPES[scope]!.paired, { likeness }).map(describeDuplicate);

/** Same shape, other names: each a list of fields or settings, one a line, that two protocols happen to share. */
const KNOWN_SHAPES: Record<string, string[]> = {
  'API routers': [],
  'dnp3/ and iec104/': [
    // Counter and timer interfaces: `name: number;` lines (a link parser's counters, a station's timers).
    'dnp3/link/parser.ts:8-15 ~ iec104/station/station.ts:13-22',
    'dnp3/link/parser.ts:11-16 ~ iec104/station/station.ts:15-22',
    'dnp3/link/parser.ts:12-17 ~ iec104/station/station.ts:15-22',
  ],
  'plumbing files': [],
};

for (const scope of Object.keys(SCOPES)) {
  test(`${scope}: no exact copy of six lines or more`, () => {
    assert.ok(SCOPES[scope]!.files().length >= 3, `${scope}: the files are found`);
    assert.equal(found(scope, 'exact'), []);
  });
  test(`${scope}: copies of the same shape are the committed list`, () => {
    assert.equal(found(scope, 'shape'), KNOWN_SHAPES[scope]);
  });
}

test('the finder fails on a copy: six lines pasted into another file, exact and renamed', () => {
  const original = read(root, 'plumbing/retry.ts');
  const body = original.split('\n').slice(12, 40).join('\n');
  assert.ok(findDuplicates(new Map([['a.ts', original], ['b.ts', `// another file\nconst x = 1;\n${body}\n`]]), () => true).length >= 1, 'exact copy found');
  const renamed = body.replace(/\battempt\b/g, 'tries').replace(/\bceiling\b/g, 'top');
  assert.equal(findDuplicates(new Map([['a.ts', original], ['b.ts', renamed]]), () => true), [], 'renamed: not exact');
  assert.ok(findDuplicates(new Map([['a.ts', original], ['b.ts', renamed]]), () => true, { likeness: 'shape' }).length >= 1, 'renamed: same shape');
  assert.equal(findDuplicates(new Map([['a.ts', original], ['b.ts', original]]), () => false), [], 'pairs not compared are not reported');
});

test.run();
