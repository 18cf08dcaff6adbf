// The repository explains itself, and its documents hold together:
// - no tracked file points readers to design documents or data that a clone does not contain (a `../shared`
//   folder beside the checkout included: tests read only the repository, test/structure/stands-alone.test.ts);
// - every `docs/<page>.md#anchor` and README "Section" cited anywhere in the tree names a heading that exists;
// - every relative link and `#anchor` in the README, docs/*.md, the folders' READMEs and bench/results/README.md
//   resolves: the file exists and, for a Markdown target, the anchor is one of its headings (GitHub's slugs);
// - every page under docs/ is listed once in docs/README.md, under one reader (evaluate, operate, integrate,
//   develop), the README links that index, and each page has a contents list naming its sections;
// - bench/results/README.md has a row for every result file.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = new URL('../..', import.meta.url).pathname;
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0')
  .filter((f) => f && /\.(ts|tsx|js|sh|sql|md|py|json)$/.test(f) && f !== 'package-lock.json' && f !== 'test/docs/references.test.ts');
const text = (f: string) => readFileSync(join(root, f), 'utf8');
const docsPages = () => readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`);
/** The documents whose links are checked: every tracked Markdown file but the bench reports (generated). */
const documents = () => tracked.filter((f) => f.endsWith('.md') && !(f.startsWith('bench/results/') && f !== 'bench/results/README.md'));

/**
 * Pages another branch adds while branches are merged (empty once they are). The README may link them already; until they exist a link to them is allowed. Once a page exists it must leave this list (a test
 * below fails until it does), so the exception cannot outlive the merge.
 */
const ARRIVING = new Set<string>([]);

/** The index of docs/, and the readers it lists the pages under (one `## ` section each). */
const DOCS_INDEX = 'docs/README.md';
const READERS = ['Evaluate', 'Operate', 'Integrate', 'Develop'];

// Documents and data outside the repository: the design card, the style notes, the spec decisions, the reference
// notes and WSDLs, the sample fixtures (the repository's own copies are test/fixtures).
const OUTSIDE = [/\bDESIGN(\.md)?\b/, /\bSTYLE(\.md| \d)/, /SPEC-DECISIONS/, /\bshared\/(fixtures|reference|seed|hooks)\b/, /\.\.\/shared\b/, /shared\/[A-Z-]+\.md/];

/** GitHub's heading anchors: lower case, punctuation but `-` and `_` dropped, spaces to dashes. */
export const anchorOf = (heading: string) => heading.trim().toLowerCase().replace(/[^a-z0-9 _-]/g, '').replace(/ /g, '-');

/** Markdown without fenced code blocks and inline code (what is shown as code is not a link). */
function prose(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```\s*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** The headings of a Markdown text (outside code blocks), in order. */
export function headingsOf(markdown: string): string[] {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```\s*$/gm, '').split('\n').filter((l) => /^#{1,6} /.test(l)).map((l) => l.replace(/^#+ /, '').trim());
}

/** The anchors of a Markdown text's headings; a repeated heading gets -1, -2 ... as on GitHub. */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const h of headingsOf(markdown)) {
    const base = anchorOf(h);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** Relative link targets of a Markdown text: `[text](target)` and `![alt](target)`, not URLs or mail. */
export function linksOf(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

/** What is wrong with one link of `from` (a path from the repository root), or null. */
function brokenLink(from: string, target: string, exists: (f: string) => boolean, anchorsOfFile: (f: string) => Set<string>): string | null {
  const [path, anchor] = target.split('#') as [string, string | undefined];
  const file = path === '' ? from : normalize(join(dirname(from), decodeURIComponent(path)));
  if (file.startsWith('..')) return `${from}: ${target} leaves the repository`;
  if (!exists(file)) return ARRIVING.has(file) ? null : `${from}: ${target}: ${file} does not exist`;
  if (anchor === undefined) return null;
  if (!file.endsWith('.md')) return `${from}: ${target}: an anchor into a file that is not Markdown`;
  return anchorsOfFile(file).has(anchor) ? null : `${from}: ${target}: no heading with the anchor #${anchor} in ${file}`;
}

const onDisk = (f: string) => existsSync(join(root, f));

function brokenLinks(files: string[], read: (f: string) => string, exists: (f: string) => boolean = onDisk): string[] {
  const cache = new Map<string, Set<string>>();
  const anchorsOfFile = (f: string) => {
    if (!cache.has(f)) cache.set(f, anchorsOf(read(f)));
    return cache.get(f)!;
  };
  return files.flatMap((f) => linksOf(read(f)).map((t) => brokenLink(f, t, exists, anchorsOfFile)).filter((p): p is string => p !== null));
}

test('anchors are computed as GitHub does', () => {
  assert.is(anchorOf('Fault <50 adjustment'), 'fault-50-adjustment');
  assert.is(anchorOf('DNP3 JSON output'), 'dnp3-json-output');
  assert.is(anchorOf('Measured: `npm run bench:storage`'), 'measured-npm-run-benchstorage');
  assert.is(anchorOf('MultiSpeak (channels C and D)'), 'multispeak-channels-c-and-d');
  assert.is(anchorOf('snake_case names'), 'snake_case-names');
  assert.equal([...anchorsOf('# A\n## Notes\n```\n## not a heading\n```\n### Notes\n')], ['a', 'notes', 'notes-1']);
});

test('the link check can fail: a missing file, a missing anchor, a link out of the repository', () => {
  const pages: Record<string, string> = {
    'README.md': '[ok](docs/architecture.md#floors) [gone](docs/nope.md) [bad](docs/architecture.md#nope) `[code](docs/nope.md)` [web](https://x.example/a.md)',
    'docs/a.md': '# A\n## Here\n[self](#here) [up](../README.md) [out](../../etc/passwd) [self-bad](#there)\n',
  };
  const read = (f: string) => pages[f] ?? text(f);
  assert.equal(brokenLinks(Object.keys(pages), read, (f) => f in pages || onDisk(f)), [
    'README.md: docs/nope.md: docs/nope.md does not exist',
    'README.md: docs/architecture.md#nope: no heading with the anchor #nope in docs/architecture.md',
    'docs/a.md: ../../etc/passwd leaves the repository',
    'docs/a.md: #there: no heading with the anchor #there in docs/a.md',
  ]);
});

test('every relative link and anchor in the README, docs/*.md, the folders\' READMEs and bench/results/README.md resolves', () => {
  assert.ok(['README.md', 'docs/architecture.md', 'dnp3/README.md', 'bench/results/README.md'].every((f) => documents().includes(f)), 'documents read');
  const links = documents().flatMap((f) => linksOf(text(f)));
  assert.ok(links.length > 100, `links read: ${links.length}`);
  assert.equal(brokenLinks(documents(), text), []);
});

test('every docs/<page>.md#anchor cited in the tree is a heading of that page', () => {
  const broken: string[] = [];
  for (const f of tracked) {
    for (const m of text(f).matchAll(/docs\/([a-z0-9-]+\.md)#([a-z0-9_-]+)/g)) {
      const page = `docs/${m[1]}`;
      if (!existsSync(join(root, page))) { if (!ARRIVING.has(page)) broken.push(`${f}: ${page} does not exist`); continue; }
      if (!anchorsOf(text(page)).has(m[2]!)) broken.push(`${f}: ${page}#${m[2]}`);
    }
  }
  assert.equal(broken, []);
});

test('every README "Section" cited in the tree is a heading of the README', () => {
  const headings = new Set(headingsOf(text('README.md')));
  const cited = tracked.filter((f) => f !== 'README.md').flatMap((f) => [...text(f).matchAll(/README(?:'s)?\s+"([^"]+)"/g)].map((m) => [f, m[1]!.replace(/\s*\n\s*(\/\/\s*)?/g, ' ')] as const));
  assert.ok(cited.some(([, s]) => s === 'Configuration'), 'the tree cites README "Configuration"');
  assert.equal(cited.filter(([, s]) => !headings.has(s)).map(([f, s]) => `${f}: README "${s}"`), []);
});

/** The pages each reader's section of the index links, as paths from the repository root. */
function pagesByReader(index: string, from = DOCS_INDEX): Map<string, string[]> {
  const sections = index.split(/\n## /).slice(1).map((s) => [s.split('\n')[0]!.trim(), s] as const);
  return new Map(sections.filter(([h]) => READERS.includes(h))
    .map(([h, body]) => [h, linksOf(body).map((t) => normalize(join(dirname(from), t.split('#')[0]!))).filter((f) => f.startsWith('docs/') && f.endsWith('.md'))]));
}

/** What is wrong with the index: a page under no reader or under two, a reader missing. */
function indexProblems(index: string, pages: string[]): string[] {
  const byReader = pagesByReader(index);
  const problems = READERS.filter((r) => !byReader.has(r)).map((r) => `${DOCS_INDEX}: no "## ${r}" section`);
  for (const page of pages.filter((p) => p !== DOCS_INDEX)) {
    const under = READERS.filter((r) => byReader.get(r)?.includes(page));
    if (under.length !== 1) problems.push(`${page}: listed under ${under.length === 0 ? 'no reader' : under.join(' and ')} in ${DOCS_INDEX}`);
  }
  return problems;
}

test('the index check can fail: a page under no reader, a page under two, a reader missing', () => {
  const index = '# D\n## Evaluate\n[a](a.md)\n## Operate\n[a](a.md) [up](../README.md)\n## Integrate\n';
  assert.equal(indexProblems(index, ['docs/a.md', 'docs/b.md', DOCS_INDEX]), [
    `${DOCS_INDEX}: no "## Develop" section`,
    `docs/a.md: listed under Evaluate and Operate in ${DOCS_INDEX}`,
    `docs/b.md: listed under no reader in ${DOCS_INDEX}`,
  ]);
});

test('every page under docs/ is listed in docs/README.md under exactly one reader, and the README links the index', () => {
  assert.equal(indexProblems(text(DOCS_INDEX), docsPages()), []);
  const listed = new Set([...pagesByReader(text(DOCS_INDEX)).values()].flat());
  assert.equal([...ARRIVING].filter((p) => !listed.has(p)), [], 'the index lists the pages other branches add');
  assert.ok(linksOf(text('README.md')).some((t) => normalize(t.split('#')[0]!) === DOCS_INDEX), 'the README links docs/README.md');
});

test('a page another branch adds leaves ARRIVING once it exists', () => {
  assert.equal([...ARRIVING].filter((p) => existsSync(join(root, p))), [], 'remove these from ARRIVING in this file');
});

test('every docs/ page opens with a contents list that names each of its sections', () => {
  const problems: string[] = [];
  for (const page of docsPages()) {
    const md = text(page);
    const sections = headingsOf(md).filter((h, i) => i > 0 && h !== 'Contents');
    const start = md.indexOf('\n## Contents\n');
    if (start < 0) { problems.push(`${page}: no "## Contents"`); continue; }
    const list = md.slice(start + 13).split(/\n## /)[0]!;
    const listed = new Set([...list.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]!));
    const topLevel = md.replace(/^```[^\n]*\n[\s\S]*?^```\s*$/gm, '').split('\n').filter((l) => /^## /.test(l) && l !== '## Contents').map((l) => anchorOf(l.slice(3)));
    for (const a of topLevel) if (!listed.has(a)) problems.push(`${page}: the contents list lacks #${a}`);
    if (sections.length === 0) problems.push(`${page}: no sections`);
  }
  assert.equal(problems, []);
});

test('bench/results/README.md has a row for every result file', () => {
  const index = text('bench/results/README.md');
  const files = (dir: string): string[] => readdirSync(join(root, dir), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(`${dir}/${e.name}`) : [`${dir}/${e.name}`.replace('bench/results/', '')]))
    .filter((f) => f !== 'README.md' && !f.endsWith('.tmp'));
  const tracked = new Set(execFileSync('git', ['ls-files', 'bench/results'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean).map((f) => f.replace('bench/results/', '')));
  const results = files('bench/results').filter((f) => tracked.has(f));
  assert.ok(results.length > 10, `result files: ${results.length}`);
  // A row names a report by its .md (or .txt, .cpuprofile) and may add its siblings as (`.json`, `.svg`).
  const named = (f: string) => index.includes(`(${f})`) || (/\.(json|svg)$/.test(f) && index.includes(`(${f.replace(/\.(json|svg)$/, '.md')})`));
  assert.equal(results.filter((f) => !named(f)), []);
});

test('no tracked file cites a design document outside the repository', () => {
  const hits = tracked.flatMap((f) => text(f).split('\n').flatMap((line, i) => (OUTSIDE.some((re) => re.test(line)) ? [`${f}:${i + 1}: ${line.trim()}`] : [])));
  assert.equal(hits, []);
});

test.run();
