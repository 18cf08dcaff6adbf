// Silence judged against the pipeline's progress (domain/checkin-clock.ts silenceAsOf, advanceClock's future
// check-ins; docs/decisions.md#silence-judged-against-the-pipelines-progress), one row per case.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { advanceClock, isOffline, silenceAsOf } from '../../domain/checkin-clock.js';

const MIN = 60_000, HOUR = 60 * MIN;
const NOW = Date.UTC(2026, 10, 28, 12);
const BOUND = 30 * MIN;
/** The newest stored check-in, dated `dateMs`, stored at `storedAtMs`. */
const newest = (dateMs: number, storedAtMs = NOW) => ({ dateMs, storedAtMs });

test('caught up: the newest check-in is a moment old, silence is judged at it (about now)', () => {
  assert.is(silenceAsOf(NOW, newest(NOW - 5_000), BOUND), NOW - 5_000);
  assert.is(silenceAsOf(NOW, newest(NOW), BOUND), NOW);
});

test('behind and moving: judged where the pipeline has got to, not at now', () => {
  assert.is(silenceAsOf(NOW, newest(NOW - 10 * MIN), BOUND), NOW - 10 * MIN);
  // A device due 5 minutes ago by the wall clock whose next check-in waits in the backlog: not offline.
  const last = NOW - 20 * MIN;
  const limits = { floorS: 300, ceilingS: 15 * 60 };
  assert.ok(isOffline(last, null, NOW, limits), 'by the wall clock it would be');
  assert.not.ok(isOffline(last, null, silenceAsOf(NOW, newest(NOW - 10 * MIN), BOUND), limits), 'judged at the pipeline: not yet');
  // Weeks of history replayed after an outage: the pipeline stores as it goes, so however old, it is trusted.
  assert.is(silenceAsOf(NOW, newest(NOW - 21 * 24 * HOUR, NOW - MIN), BOUND), NOW - 21 * 24 * HOUR);
});

test('stopped (nothing newer stored for longer than the bound): judged at now - bound, a quiet fleet still alarms', () => {
  assert.is(silenceAsOf(NOW, newest(NOW - 3 * HOUR, NOW - 3 * HOUR), BOUND), NOW - BOUND);
  assert.is(silenceAsOf(NOW, newest(NOW - 10 * MIN, NOW - 40 * MIN), BOUND), NOW - 10 * MIN, 'never later than the newest check-in');
  assert.is(silenceAsOf(NOW, newest(NOW - 10 * MIN, NOW - BOUND), BOUND), NOW - 10 * MIN, 'stored exactly the bound ago: still moving');
  assert.is(silenceAsOf(NOW, null, BOUND), NOW - BOUND, 'nothing stored at all');
});

test('a check-in dated ahead of now does not make the pipeline look caught up', () => {
  assert.is(silenceAsOf(NOW, newest(NOW + 24 * HOUR), BOUND), NOW - BOUND);
});

test('bound 0: the wall clock, as before', () => {
  assert.is(silenceAsOf(NOW, newest(NOW - 10 * MIN), 0), NOW);
  assert.is(silenceAsOf(NOW, newest(NOW - 10 * MIN, NOW + HOUR), 0), NOW, 'a test clock before the store time too');
  assert.is(silenceAsOf(NOW, null, 0), NOW);
});

test('a check-in dated up to a day ahead counts as made when it was handled', () => {
  const c = advanceClock(null, NOW + 23 * HOUR, NOW);
  assert.is(c.lastMs, NOW, 'not a day ahead: the device is judged silent from its real silence');
  // The device's next true check-ins move the clock and teach it its interval; dated as sent, they were history.
  let d = c;
  for (const k of [1, 2, 3]) d = advanceClock(d, NOW + k * 15 * MIN, NOW + k * 15 * MIN + 1_000);
  assert.is(d.lastMs, NOW + 45 * MIN);
  assert.is(d.expectedS, 900);
  assert.is(advanceClock(c, NOW - MIN, NOW), c, 'an older one still changes nothing');
});

test.run();
