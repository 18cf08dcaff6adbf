// The one flush timer (plumbing/flush-timer.ts) that the station's point persistence and the masters'
// diagnostics ledger share: writes never overlap, the timer flushes by itself, stop() writes what is left,
// and a write that throws is reported without stopping later flushes.
import { setTimeout as sleep } from 'node:timers/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FlushTimer } from '../../plumbing/flush-timer.js';
import { waitFor } from '../../support/wait-for.js';

const test = suite('flush timer');

test('flushes asked while one runs wait for it: never two writes at once', async () => {
  let running = 0, most = 0, writes = 0;
  const timer = new FlushTimer(async () => {
    running++; most = Math.max(most, running);
    await sleep(5);
    writes++; running--;
  }, () => {});
  await Promise.all([timer.flush(), timer.flush(), timer.flush()]);
  assert.is(writes, 3);
  assert.is(most, 1);
});

test('the timer flushes by itself; stop() ends it and writes once more', async () => {
  let writes = 0;
  const timer = new FlushTimer(async () => { writes++; }, () => {});
  timer.start(5);
  timer.start(5); // a second start keeps the one timer
  await waitFor('two timed flushes', () => writes >= 2 || undefined, { timeoutMs: 10_000 });
  const before = writes;
  await timer.stop();
  assert.ok(writes >= before + 1, 'stop() wrote what was left');
  const after = writes;
  await sleep(30);
  assert.is(writes, after, 'no timed flush after stop()');
});

test('a write that throws is reported and the next flush still runs', async () => {
  const errors: unknown[] = [];
  let calls = 0;
  const timer = new FlushTimer(async () => { calls++; if (calls === 1) throw new Error('database away'); }, (e) => errors.push(e));
  timer.start(5);
  await waitFor('a flush after the failed one', () => calls >= 2 || undefined, { timeoutMs: 10_000 });
  await timer.stop();
  assert.is((errors[0] as Error).message, 'database away');
  await timer.flush(); // the chain is not stuck on the failed write
  assert.ok(calls >= 3);
});

test.run();
