// docs/architecture.md describes every part that exists: it names every top-level folder of the repository that
// holds code (outside its "Floors" table, which lint/floors.js keeps complete on its own) and every component
// `faultline start --only` takes (in its components table). Enumerated from the tree and from cli/start.ts, so a
// folder or component added later fails here until the page describes it.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { COMPONENTS } from '../../cli/start.js';

const root = new URL('../..', import.meta.url).pathname;
const page = readFileSync(join(root, 'docs/architecture.md'), 'utf8');

/** The page without one `## ` section. */
const without = (md: string, heading: string) => md.replace(new RegExp(`\\n## ${heading}\\n[\\s\\S]*?(?=\\n## |$)`), '\n');
/** One `## ` section of the page. */
const section = (md: string, heading: string) => new RegExp(`\\n## ${heading.replace(/[`]/g, '.')}\\n([\\s\\S]*?)(?=\\n## |$)`).exec(md)?.[1] ?? '';

/** Top-level folders that hold code (tracked .ts, .tsx or .js files). */
function codeFolders(): string[] {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0');
  return [...new Set(files.filter((f) => f.includes('/') && /\.(tsx?|js)$/.test(f)).map((f) => f.split('/')[0]!))].filter((d) => !d.startsWith('.')).sort();
}

/** Folders named as `folder/` (a path inside it, `folder/x.ts`, counts too) in a text. */
const namedFolders = (md: string) => new Set([...md.matchAll(/`([a-z][a-z0-9-]*)\//g)].map((m) => m[1]!));
/** Backticked words in the first column of a table. */
const firstColumn = (md: string) => new Set(md.split('\n').filter((l) => l.startsWith('| `')).flatMap((l) => [...l.split('|')[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!)));

test('the enumerations find what they should (the test can fail)', () => {
  const folders = codeFolders();
  for (const f of ['alarms', 'incidents', 'storage', 'points', 'plumbing', 'iec104', 'commissioning', 'portal']) assert.ok(folders.includes(f), f);
  assert.ok(!namedFolders(without('x `alarms/` y\n## Floors\n`incidents/`\n', 'Floors')).has('incidents'), 'the floors table does not count');
  for (const c of ['alarms', 'incidents', 'persist', 'bridge']) assert.ok((COMPONENTS as readonly string[]).includes(c), c);
});

test('docs/architecture.md names every top-level folder that holds code, outside its floors table', () => {
  const named = namedFolders(without(page, 'Floors'));
  assert.equal(codeFolders().filter((f) => !named.has(f)), []);
});

test('docs/architecture.md\'s components table has a row for every component of `faultline start --only`', () => {
  const rows = firstColumn(section(page, 'Components of `faultline start`'));
  assert.ok(rows.size > 0, 'the page has a "Components of `faultline start`" table');
  assert.equal(COMPONENTS.filter((c) => !rows.has(c)), []);
  assert.equal([...rows].filter((r) => !(COMPONENTS as readonly string[]).includes(r)), [], 'rows that are no component');
});

test.run();
