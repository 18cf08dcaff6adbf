// docs/decisions.md opens with a contents list generated from its `## ` headings (support/docs-contents.ts,
// `npm run docs:contents`): sections are appended on several branches at once, so after a merge the list is
// written again, and this suite fails until it is. The page holds decisions only; how the work went is in
// docs/development-log.md (docs/decisions.md#documentation-layout-and-operational-alerts).
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { contentsList, DECISIONS_PAGE, sectionHeadings, withContents } from '../../support/docs-contents.js';

const page = () => readFileSync(DECISIONS_PAGE, 'utf8');

test('the list is made from the ## headings, outside code blocks, with GitHub\'s anchors', () => {
  const md = '# T\n\nintro\n\n## Fault <50 adjustment\n### not listed\n```\n## in code\n```\n## Notes\n## Notes\n';
  assert.equal(sectionHeadings(md), ['Fault <50 adjustment', 'Notes', 'Notes']);
  const list = contentsList(md).split('\n').slice(1, -1);
  assert.equal(list, ['- [Fault <50 adjustment](#fault-50-adjustment)', '- [Notes](#notes)', '- [Notes](#notes-1)']);
});

test('a page without a list gets one before its first section; a list is replaced, never repeated', () => {
  const md = '# T\n\nintro\n\n## A\ntext\n';
  const once = withContents(md);
  assert.ok(once.startsWith('# T\n\nintro\n\n## Contents\n\n<!-- contents'), once);
  assert.ok(once.endsWith('<!-- end of contents -->\n\n## A\ntext\n'), once);
  assert.is(withContents(once), once, 'written again: unchanged');
  const appended = `${once}\n## B\nmore\n`;
  assert.is.not(withContents(appended), appended, 'a section appended without writing the list again is found');
  assert.ok(withContents(appended).includes('- [A](#a)\n- [B](#b)\n'));
});

test('docs/decisions.md\'s contents list matches its ## headings (else: npm run docs:contents)', () => {
  const md = page();
  assert.ok(sectionHeadings(md).length > 50, 'the decisions are read');
  assert.ok(md.includes('\n## Contents\n\n<!-- contents'), 'the list is at the top, under "## Contents"');
  const written = md.slice(md.indexOf('<!-- contents'), md.indexOf('<!-- end of contents -->') + '<!-- end of contents -->'.length);
  assert.equal(written.split('\n'), contentsList(md).split('\n'));
});

test('docs/decisions.md keeps decisions only: no status of work under way', () => {
  const status = [/^Issue #?\d+[^.\n]*\bin progress\b/im, /\bthis session\b/i, /\bnot solved here\b/i, /\bsession narrative/i];
  assert.equal(status.filter((re) => re.test(page())).map(String), [], 'such text goes to docs/development-log.md');
});

test.run();
