import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LoginLimiter, SlidingWindow } from '../../api/auth/rate-limit.js';

test('sliding window: max attempts per window, then the wait until the oldest leaves it', () => {
  const w = new SlidingWindow({ max: 3, windowMs: 1000 });
  for (const t of [0, 100, 200]) {
    assert.is(w.retryAfterMs('k', t), 0);
    w.record('k', t);
  }
  assert.is(w.retryAfterMs('k', 300), 700);
  assert.is(w.retryAfterMs('k', 999), 1);
  assert.is(w.retryAfterMs('k', 1000), 0, 'the first attempt left the window');
  assert.is(w.retryAfterMs('other', 300), 0, 'keys are apart');
});

test('the key store is bounded: the least recently used key goes first', () => {
  const w = new SlidingWindow({ max: 1, windowMs: 10_000, maxKeys: 2 });
  w.record('a', 0);
  w.record('b', 1);
  w.record('a', 2);
  w.record('c', 3);
  assert.ok(w.retryAfterMs('a', 4) > 0, 'a was used recently');
  assert.is(w.retryAfterMs('b', 4), 0, 'b was evicted');
});

test('login limiter: per email (case-insensitive) and per address; seconds rounded up, at least 1', () => {
  const l = new LoginLimiter({ perEmail: { max: 2, windowMs: 60_000 }, perAddress: { max: 3, windowMs: 10_000 } });
  l.failed('A@x', '1.1.1.1', 0);
  l.failed('a@X', '2.2.2.2', 0);
  assert.is(l.retryAfterS('a@x', '3.3.3.3', 1), 60);
  assert.is(l.retryAfterS('b@x', '1.1.1.1', 1), 0);
  l.failed('b@x', '1.1.1.1', 0);
  l.failed('c@x', '1.1.1.1', 9_999);
  assert.is(l.retryAfterS('d@x', '1.1.1.1', 9_999), 1);
  assert.is(l.retryAfterS('d@x', '1.1.1.1', 10_000), 0);
});

test.run();
