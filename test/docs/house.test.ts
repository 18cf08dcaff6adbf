// The picture of the house in docs/architecture.md (docs/house.svg) is the house as it is: regenerated here in
// memory from the imports of the production code, it must equal the committed file (support/house.ts).
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { committedHouse, houseArrows, houseSvg } from '../../support/house.js';

const test = suite('house');
const root = new URL('../..', import.meta.url).pathname;

test('docs/house.svg is the house the imports make today', () => {
  assert.ok(houseSvg() === committedHouse(), 'docs/house.svg is stale: run `npm run house` and commit it');
});

test('the picture counts the imports between rooms and shows an arrow back up in red', () => {
  const arrows = houseArrows(['api/a.ts', 'api/b.ts', 'domain/c.ts'], (f) => (f === 'domain/c.ts' ? ['api/app.ts'] : ['domain/x.ts', 'config/y.ts', 'api/z.ts']));
  assert.equal([...arrows], [['api>domain', 2], ['api>config', 2], ['domain>api', 1]]);
  const svg = houseSvg(arrows);
  assert.match(svg, /5 imports between \d+ folders, 1 running back up/);
  assert.match(svg, /<title>domain\/ imports api\/ 1 times<\/title>/);
  assert.match(svg, /stroke="#cc0000"/);
});

test('docs/architecture.md shows the picture beside its words', () => {
  assert.match(readFileSync(`${root}docs/architecture.md`, 'utf8'), /!\[[^\]]+\]\(house\.svg\)/);
});

test.run();
