// Silence judged against the pipeline's progress (domain/checkin-clock.ts silenceAsOf, advanceClock's future
// check-ins; docs/decisions.md#silence-judged-against-the-pipelines-progress), one row per case.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { advanceClock, isOffline, silenceAsOf } from '../../domain/checkin-clock.js';

const MIN = 60_000;
const NOW = Date.UTC(2026, 10, 28, 12);
const BOUND = 30 * MIN;

test('caught up: the newest stored check-in is a moment old, silence is judged at it (about now)', () => {
  assert.is(silenceAsOf(NOW, NOW - 5_000, BOUND), NOW - 5_000);
  assert.is(silenceAsOf(NOW, NOW, BOUND), NOW);
});

test('behind: a backlog waits, silence is judged where the pipeline stopped, not at now', () => {
  assert.is(silenceAsOf(NOW, NOW - 10 * MIN, BOUND), NOW - 10 * MIN);
  // A device due 5 minutes ago (by the wall clock) whose next check-in waits in the backlog: not offline.
  const last = NOW - 20 * MIN;
  const limits = { floorS: 300, ceilingS: 15 * 60 };
  assert.ok(isOffline(last, null, NOW, limits), 'by the wall clock it would be');
  assert.not.ok(isOffline(last, null, silenceAsOf(NOW, NOW - 10 * MIN, BOUND), limits), 'judged at the pipeline: not yet');
});

test('stale: never more than the bound behind now, so a fleet that truly went quiet is still judged', () => {
  assert.is(silenceAsOf(NOW, NOW - 3 * 3600_000, BOUND), NOW - BOUND);
  assert.is(silenceAsOf(NOW, null, BOUND), NOW - BOUND, 'nothing stored at all');
});

test('a check-in dated ahead of now does not make the pipeline look caught up', () => {
  assert.is(silenceAsOf(NOW, NOW + 24 * 3600_000, BOUND), NOW - BOUND);
});

test('bound 0: the wall clock, as before', () => {
  assert.is(silenceAsOf(NOW, NOW - 10 * MIN, 0), NOW);
  assert.is(silenceAsOf(NOW, null, 0), NOW);
});

test('a check-in dated up to a day ahead counts as made when it was handled', () => {
  const ahead = NOW + 23 * 3600_000;
  const c = advanceClock(null, ahead, NOW);
  assert.is(c.lastMs, NOW, 'not a day ahead: the device is judged silent from its real silence');
  // The device's next true check-ins move the clock and teach it its interval; dated as sent, they were history.
  let d = c;
  for (const k of [1, 2, 3]) d = advanceClock(d, NOW + k * 15 * MIN, NOW + k * 15 * MIN + 1_000);
  assert.is(d.lastMs, NOW + 45 * MIN);
  assert.is(d.expectedS, 900);
  assert.is(advanceClock(c, NOW - MIN, NOW), c, 'an older one still changes nothing');
});

test.run();
