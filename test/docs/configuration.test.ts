// README "Configuration" lists every environment variable the service reads, and nothing it does not read.
// What the service reads comes from support/environment-variables.ts (config/ is the one place that reads it).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import { variablesTheServiceReads } from '../../support/environment-variables.js';
import * as assert from 'uvu/assert';

const root = new URL('../..', import.meta.url).pathname;
const readByCode = variablesTheServiceReads;

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
