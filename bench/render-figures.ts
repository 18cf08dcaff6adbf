// `npm run docs:figures`: writes every marked figure of the pages that quote them (support/figures.ts PAGES) from
// the committed result files. `--check` writes nothing and exits 1 naming each page that drifted.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PAGES, render } from '../support/figures.js';

const root = new URL('../', import.meta.url).pathname;
const check = process.argv.includes('--check');
let drifted = 0;
for (const page of PAGES) {
  const file = join(root, page.path);
  const before = readFileSync(file, 'utf8');
  const { text, unknown } = render(before, page.from);
  if (unknown.length) throw new Error(`${page.path}: no figure named ${unknown.join(', ')} (support/figures.ts)`);
  if (text === before) continue;
  drifted++;
  if (check) console.log(`${page.path}: its figures differ from bench/results/ (npm run docs:figures)`);
  else { writeFileSync(file, text); console.log(`${page.path}: figures written`); }
}
if (check && drifted > 0) process.exit(1);
