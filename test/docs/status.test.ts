// Every capability's status is stated once, in the README's Status table (issue 42 point 4): the table has a row
// for every component `faultline start --only` takes, and no page of the repository calls a capability unfinished
// ("in progress", "not yet started" ...), as three pages once said of IEC 104 while `faultline start` ran it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { COMPONENTS } from '../../cli/start.js';
import { STAGE_NAMES } from '../../stages/pipeline.js';

const root = new URL('../..', import.meta.url).pathname;
const read = (f: string) => readFileSync(join(root, f), 'utf8');
/** Every page a reader may take a status from: the README, docs/ and the folders' own READMEs. */
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`),
  ...readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory() && !d.name.startsWith('.') && d.name !== 'node_modules' && existsSync(join(root, d.name, 'README.md'))).map((d) => `${d.name}/README.md`),
];

const CAPABILITY = /\b(IEC 104|IEC 60870-5-104|iec104|104 station|DNP3|outstation|MultiSpeak|OMS delivery|alarms?|incidents?|portal|bridge|pipeline)\b/i;
const UNFINISHED = /\b(in progress|not yet (?:started|built|supported|implemented|run|wired)|work in progress|coming soon|unfinished|planned for a later)\b/i;

/** Sentences (across line breaks) that name a capability and call it unfinished; `where` names page and line. */
export function unfinishedClaims(text: string, where: string): string[] {
  const out: string[] = [];
  const lines = text.split('\n');
  let start = 0;
  for (const paragraph of text.split(/\n\s*\n/)) {
    const line = lines.length - text.slice(text.indexOf(paragraph, start)).split('\n').length + 1;
    start = text.indexOf(paragraph, start) + paragraph.length;
    for (const sentence of paragraph.replace(/\s+/g, ' ').split(/(?<=\.)\s/)) {
      // Ordinary uses of the words: TLS handshakes under way; the words quoted (a test fault's state name, a
      // decision telling what a page once said).
      const plain = sentence.replace(/handshakes? in progress/gi, '').replace(/"[^"]*"/g, '');
      if (CAPABILITY.test(plain) && UNFINISHED.test(plain)) out.push(`${where}:${line}: ${sentence.trim()}`);
    }
  }
  return out;
}

/** The component names of the README's Status table (its second column, backticked). */
export function statusComponents(readme: string): string[] {
  const section = /^## Status\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? '';
  return section.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| capability') && !l.startsWith('|---'))
    .flatMap((l) => [...(l.split('|')[2] ?? '').matchAll(/`([a-z0-9-]+)`/g)].map((m) => m[1]!));
}

test('the check can fail: an unfinished capability and a missing component are found', () => {
  assert.equal(unfinishedClaims('SCADA masters (DNP3; IEC 60870-5-104 in progress), outage\nmanagement.', 'x').length, 1);
  assert.equal(unfinishedClaims('The IEC 104 station: APCI layers;\nin progress, not yet started by `faultline start`.', 'x').length, 1);
  assert.equal(unfinishedClaims('At most 64 TLS handshakes in progress for the DNP3 outstation.', 'x'), []);
  assert.equal(unfinishedClaims('Pages once called IEC 104 "in progress".', 'x'), []);
  assert.equal(statusComponents('## Status\n\n| capability | x | status |\n|---|---|---|\n| a | `api` | supported |\n\n## Next\n'), ['api']);
});

test('the README states every capability\'s status once, a row per faultline start component', () => {
  const named = statusComponents(read('README.md'));
  const want = COMPONENTS.filter((c) => !(STAGE_NAMES as readonly string[]).includes(c));
  assert.equal(want.filter((c) => !named.includes(c)), [], 'components without a status row');
  assert.equal(named.filter((c, i) => named.indexOf(c) !== i), [], 'a component with two rows');
  assert.ok(named.includes('pipeline'), 'the pipeline\'s stages have a row');
});

test('no page calls a capability unfinished (IEC 104 included)', () => {
  assert.ok(pages.length > 20, pages.join(', '));
  assert.equal(pages.flatMap((p) => unfinishedClaims(read(p), p)), []);
});

test.run();
