// A suite still running at its time limit is killed with every process it started, counted failed and named
// (test/helpers/run-suite.ts, as test/run.ts runs each suite).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { account, runSuite, timeLimitMs } from '../helpers/run-suite.js';

const root = new URL('../../', import.meta.url).pathname;
const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };

test('a hung suite is killed at its limit with its children, counted failed and named', async () => {
  // The limit leaves the fixture time to start its child on a loaded machine (tsx start-up alone can take seconds).
  const run = await runSuite('test/runner/suites/hung.ts', { cwd: root, limitMs: 20_000, echo: false });
  assert.is(run.killedAfterMs, 20_000);
  const pid = Number(/CHILD (\d+)/.exec(run.output)?.[1]);
  assert.ok(pid > 0, run.output);
  for (let i = 0; i < 600 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  assert.not.ok(alive(pid), 'the process the suite started is ended too');
  const counted = account('test/runner/suites/hung.ts', run);
  assert.is(counted.failed, 1);
  assert.match(counted.failure ?? '', /test\/runner\/suites\/hung\.ts \(killed: still running at its time limit/);
});

test('15 minutes unless the suite is listed; SUITE_TIME_LIMIT_MS overrides', () => {
  assert.is(timeLimitMs('test/api/anything.test.ts', {}), 15 * 60_000);
  assert.ok(timeLimitMs('test/resilience/cluster.test.ts', {}) > 15 * 60_000);
  assert.is(timeLimitMs('test/resilience/cluster.test.ts', { SUITE_TIME_LIMIT_MS: '5000' }), 5000);
});

test.run();
