// One source for every figure (issue 42 point 4): the README's measured table and the sizing figures of
// docs/operations.md and docs/production-shape.md are written from bench/results/ by `npm run docs:figures`
// (support/figures.ts); a page that differs from what the result files give fails here, a page that quotes the
// sizing rule with another divisor fails, and the README's SCADA latency row links a result file holding its numbers.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MARKER, PAGES, alarmRun, figures, render } from '../../support/figures.js';

const root = new URL('../..', import.meta.url).pathname;
const read = (f: string) => readFileSync(join(root, f), 'utf8');
const marked = (page: string) => [...page.matchAll(MARKER)].map((m) => m[1]!);
const markdown = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

test('the check can fail: a figure written by hand is not what the result file gives', () => {
  const page = '| end to end | <!-- figure:e2e-process -->about 1,700 check-ins/s on one core<!-- /figure --> |';
  const { text, unknown } = render(page, 'docs');
  assert.equal(unknown, []);
  assert.is.not(text, page);
  assert.match(text, /<!-- figure:e2e-process -->[\d,]+ check-ins\/s \([\d,]+-[\d,]+ over \d+ runs\), \d+ µs/);
  assert.equal(render('<!-- figure:no-such -->1<!-- /figure -->', 'root').unknown, ['no-such']);
});

test('every page quoting figures is what the result files give (npm run docs:figures)', () => {
  for (const { path, from } of PAGES) {
    const page = read(path);
    const { text, unknown } = render(page, from);
    assert.equal(unknown, [], `${path}: unknown figure names`);
    assert.ok(text === page, `${path} differs from bench/results/: run npm run docs:figures`);
  }
});

test('the headline figures are marked where the pages quote them, so none is written by hand', () => {
  const want: Record<string, string[]> = {
    'README.md': ['measured-table'],
    'docs/operations.md': ['e2e-process', 'pipeline-alone', 'postgres-disk', 'sizing-per-process'],
    'docs/production-shape.md': ['e2e-process', 'sizing-per-process'],
  };
  for (const [path, names] of Object.entries(want)) {
    const has = new Set(marked(read(path)));
    assert.equal(names.filter((n) => !has.has(n)), [], `${path} lacks these figures`);
  }
});

test('every page states the sizing rule with the one divisor', () => {
  const divisor = figures('docs')['sizing-per-process']!();
  const quoted = markdown.flatMap((f) => [...read(f).matchAll(/ceil\(peak check-ins per second \/ (?:<!-- figure:[\w-]+ -->)?([\d,]+)/g)].map((m) => `${f}: ${m[1]}`));
  assert.ok(quoted.length >= 2, quoted.join('\n'));
  assert.equal(quoted.filter((q) => !q.endsWith(`: ${divisor}`)), []);
});

test('the README\'s SCADA latency links a result file that says what the README says', () => {
  const row = read('README.md').split('\n').find((l) => l.startsWith('| a fault from SQS to the SCADA master'));
  assert.ok(row, 'the README has a SQS-to-SCADA-master row');
  const [, , figure, file] = row.split('|').map((c) => c.trim());
  const target = /\]\((bench\/results\/[^)]+\.md)\)/.exec(file!)?.[1];
  assert.ok(target, `a result file linked: ${file}`);
  const numbers = (s: string) => [...s.matchAll(/\d[\d,]*(?:\.\d+)?/g)].map((m) => Number(m[0].replace(/,/g, '')));
  const inFile = new Set(numbers(read(target)));
  const quoted = [...figure!.matchAll(/(\d[\d,]*(?:\.\d+)?) ms/g)].map((m) => Number(m[1]!.replace(/,/g, '')));
  assert.ok(quoted.length >= 2, figure);
  assert.equal(quoted.filter((n) => !inFile.has(n)), [], `${target} does not hold these figures of the README`);
});

test('the alarm row reads the newest full-variant run of alarms.md', () => {
  const md = '| offered | achieved send rate | a | b | c | p (ms) |\n|---|---|---|---|---|---|\n| 1,000/s | 360/s | 97 / 97 | 0 | 0 | 1 / 2 / 3 / 4 |\n| 1,000/s | 1,000/s | 298 / 298 | 197 | 0 | 328 / 1098 / 1850 / 2512 |\n| 1,000/s | 1,000/s | 298 / 298 | 197 | 0 | 1255 / 1903 / 2576 / 2638 |';
  assert.equal(alarmRun(md), { p50: 328, p90: 1098, p99: 1850, max: 2512 });
});

test.run();
