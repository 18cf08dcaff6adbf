// The repository explains itself: no tracked file points readers to design documents that a clone does not
// contain, and every `docs/<page>.md#anchor` cited names a heading that exists. Fixture files under
// ../shared/fixtures are test data, read by support/shared-dir.ts, and stay allowed.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = new URL('../..', import.meta.url).pathname;
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0')
  .filter((f) => f && /\.(ts|tsx|js|sh|sql|md|py|json)$/.test(f) && f !== 'package-lock.json' && f !== 'test/docs/references.test.ts');
const text = (f: string) => readFileSync(join(root, f), 'utf8');

// Documents outside the repository: the design card, the style notes, the spec decisions, the reference notes.
const OUTSIDE = [/\bDESIGN(\.md)?\b/, /\bSTYLE(\.md| \d)/, /SPEC-DECISIONS/, /shared\/(reference|seed)\b/, /shared\/[A-Z-]+\.md/];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes. */
export const anchorOf = (heading: string) => heading.trim().toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-');

test('no tracked file cites a design document outside the repository', () => {
  const hits = tracked.flatMap((f) => text(f).split('\n').flatMap((line, i) => (OUTSIDE.some((re) => re.test(line)) ? [`${f}:${i + 1}: ${line.trim()}`] : [])));
  assert.equal(hits, []);
});

test('every docs/<page>.md#anchor cited in the tree is a heading of that page', () => {
  const pages = new Map<string, Set<string>>();
  const anchors = (page: string) => {
    if (!pages.has(page)) pages.set(page, new Set(text(`docs/${page}`).split('\n').filter((l) => /^#{1,6} /.test(l)).map((l) => anchorOf(l.replace(/^#+ /, '')))));
    return pages.get(page)!;
  };
  const broken: string[] = [];
  for (const f of tracked) {
    for (const m of text(f).matchAll(/docs\/([a-z0-9-]+\.md)#([a-z0-9-]+)/g)) {
      let known: Set<string>;
      try { known = anchors(m[1]!); } catch { broken.push(`${f}: docs/${m[1]} does not exist`); continue; }
      if (!known.has(m[2]!)) broken.push(`${f}: docs/${m[1]}#${m[2]}`);
    }
  }
  assert.equal(broken, []);
});

test('anchors are computed as GitHub does', () => {
  assert.is(anchorOf('Fault <50 adjustment'), 'fault-50-adjustment');
  assert.is(anchorOf('DNP3 JSON output'), 'dnp3-json-output');
});

test.run();
