// README "Configuration" lists every environment variable the service reads, and nothing it does not read.
// "Reads" means the product's code (everything but tests, benches and the infra/ scripts): `env.NAME`,
// `env['NAME']`, and the settings helpers' `(env, 'NAME'` calls.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FLOORS } from '../../lint/floors.js';

const root = new URL('../..', import.meta.url).pathname;
// The product's folders are every folder on a floor (lint/floors.js), so a folder added later is read too.
const NOT_PRODUCT = new Set(['test', 'bench', 'support', 'infra']);
const PRODUCT = new Set(FLOORS.flat().filter((f) => !NOT_PRODUCT.has(f)));
const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter((f) => PRODUCT.has(f.split('/')[0]!) && /\.(ts|js)$/.test(f));

const READS = [/\benv\.([A-Z][A-Z0-9_]+)/g, /\benv\[['"]([A-Z][A-Z0-9_]+)['"]\]/g, /\(\s*env\s*,\s*['"]([A-Z][A-Z0-9_]+)['"]/g];

function readByCode(): Set<string> {
  const names = new Set<string>();
  for (const f of files) {
    const text = readFileSync(join(root, f), 'utf8');
    for (const re of READS) for (const m of text.matchAll(re)) names.add(m[1]!);
  }
  return names;
}

function documented(): Set<string> {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Configuration\n'), readme.indexOf('\n## ', readme.indexOf('\n## Configuration\n') + 5));
  const names = new Set<string>();
  for (const row of section.split('\n').filter((l) => l.startsWith('| `'))) {
    const first = row.split('|')[1]!;
    for (const m of first.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) names.add(m[1]!);
  }
  return names;
}

test('the scan finds the variables it should (the test can fail)', () => {
  const code = readByCode();
  for (const name of ['DATABASE_URL', 'KAFKA_PARTITIONS', 'SQS_POLLERS', 'DNP3_TLS_CA', 'JWT_SECRET']) assert.ok(code.has(name), `${name} read by the code`);
});

test('every variable the code reads is in the README table', () => {
  const docs = documented();
  assert.equal([...readByCode()].filter((n) => !docs.has(n)).sort(), []);
});

test('the README table lists no variable the code does not read', () => {
  const code = readByCode();
  assert.equal([...documented()].filter((n) => !code.has(n)).sort(), []);
});

test.run();
