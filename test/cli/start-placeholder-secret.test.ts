// `faultline start` with the example JWT_SECRET of docs/examples/deploy/secrets.env is refused before it starts
// anything, with a sentence naming the variable and not its value (docs/decisions.md#secrets-left-at-their-example).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFaultline } from '../../support/process.js';

const root = new URL('../..', import.meta.url).pathname;

/** The example value as the documentation gives it, read from the file an operator copies. */
function exampleJwtSecret(): string {
  const line = readFileSync(join(root, 'docs/examples/deploy/secrets.env'), 'utf8').split('\n').find((l) => l.startsWith('JWT_SECRET='));
  assert.ok(line, 'docs/examples/deploy/secrets.env sets JWT_SECRET');
  return line!.slice('JWT_SECRET='.length);
}

test('faultline start with the example JWT_SECRET exits refused, naming JWT_SECRET, nothing started', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fl-placeholder-'));
  try {
    const secret = exampleJwtSecret();
    const proc = startFaultline(['start'], { DATA_DIR: dataDir, JWT_SECRET: secret, PORT: '0', DNP3_PORT: '0', SIMULATE: '0' });
    const code = await proc.exited;
    assert.is(code, 1, proc.output());
    assert.match(proc.output(), /JWT_SECRET is still a placeholder from the documentation's examples: anyone who read them knows it; set a secret of your own/);
    assert.not.ok(proc.output().includes(secret), 'the value is not printed');
    assert.not.ok(proc.output().includes('faultline is running'));
    assert.not.ok(existsSync(join(dataDir, 'postgres')), 'no database was started');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
