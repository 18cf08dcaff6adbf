// README "Configuration" lists every environment variable the service reads, and nothing it does not read.
// The service reads its environment in config/ alone (test/structure/environment.test.ts holds every other
// production file to that), so config/ is the one place scanned: `env.NAME`, `env['NAME']`, and the settings
// helpers' `(env, 'NAME'` calls.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = new URL('../..', import.meta.url).pathname;
const files = readdirSync(join(root, 'config'), { recursive: true, encoding: 'utf8' }).filter((f) => /\.(ts|js)$/.test(f)).map((f) => join('config', f));

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
