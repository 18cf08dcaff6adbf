// One portal build at a time across processes (portal/build.ts): the test runner packs the release, which builds
// the portal, beside the browser suites that build it too (docs/decisions.md#ci-time-two-lanes).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { holdingBuildLock } from '../../portal/build.js';

const dir = mkdtempSync(join(tmpdir(), 'portal-lock-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('a build waits while another live process holds the lock, and runs once it is released', async () => {
  const lock = join(dir, 'held');
  const holder = spawn('sleep', ['600'], { stdio: 'ignore' });
  try {
    writeFileSync(lock, String(holder.pid));
    let ran = false;
    const waiting = holdingBuildLock(async () => { ran = true; }, lock);
    await sleep(1000);
    assert.not.ok(ran, 'the build did not start while the other process held the lock');
    rmSync(lock); // the other build finished
    await waiting;
    assert.ok(ran, 'the build ran once the lock was free');
    assert.not.ok(existsSync(lock), 'and released the lock');
  } finally {
    holder.kill('SIGKILL');
  }
});

test('a lock left by a process that died is taken over', async () => {
  const lock = join(dir, 'stale');
  const dead = spawn('true');
  await new Promise((resolve) => dead.on('close', resolve));
  writeFileSync(lock, String(dead.pid));
  assert.is(await holdingBuildLock(async () => 'built', lock), 'built');
  assert.not.ok(existsSync(lock));
});

test('a build that fails releases the lock', async () => {
  const lock = join(dir, 'failing');
  await holdingBuildLock(async () => { throw new Error('vite failed'); }, lock).then(() => assert.unreachable('rejects'), (err: Error) => assert.is(err.message, 'vite failed'));
  assert.not.ok(existsSync(lock));
});

test.run();
