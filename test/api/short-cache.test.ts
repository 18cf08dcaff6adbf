import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { shortCache } from '../../api/device-records/short-cache.js';

test('within the window one computation answers every caller with the same key; concurrent callers share it', async () => {
  let clock = 0;
  let runs = 0;
  const cache = shortCache<number>({ ttlMs: 1000, now: () => clock });
  const compute = async () => ++runs;
  const [a, b] = await Promise.all([cache('k', compute), cache('k', compute)]);
  assert.equal([a, b, runs], [1, 1, 1]);
  clock = 999;
  assert.is(await cache('k', compute), 1);
  clock = 1000;
  assert.is(await cache('k', compute), 2, 'expired at the window');
});

test('a clock set back makes an entry stale, not fresh until the clock catches up', async () => {
  let clock = 10_000;
  let runs = 0;
  const cache = shortCache<number>({ ttlMs: 1000, now: () => clock });
  const compute = async () => ++runs;
  assert.is(await cache('k', compute), 1);
  clock = 5_000;
  assert.is(await cache('k', compute), 2, 'computed at a later instant than now: computed again');
  assert.is(await cache('k', compute), 2, 'and fresh from then on');
});

test('different keys never share an answer', async () => {
  const cache = shortCache<string>({ now: () => 0 });
  assert.is(await cache('user 1', async () => 'one'), 'one');
  assert.is(await cache('user 2', async () => 'two'), 'two');
});

test('a failed computation is not remembered', async () => {
  const cache = shortCache<string>({ now: () => 0 });
  let fail = true;
  const compute = async () => { if (fail) throw new Error('db away'); return 'ok'; };
  await cache('k', compute).then(() => assert.unreachable(), () => {});
  fail = false;
  assert.is(await cache('k', compute), 'ok');
});

test('a value `keep` refuses answers its waiting callers and is computed afresh next time', async () => {
  const cache = shortCache<number>({ now: () => 0, keep: (n) => n >= 1000 });
  let calls = 0;
  const small = async () => { calls++; return 5; };
  const both = await Promise.all([cache('k', small), cache('k', small)]);
  assert.equal(both, [5, 5], 'one computation in flight answers both');
  assert.is(calls, 1);
  assert.is(await cache('k', small), 5);
  assert.is(calls, 2, 'not remembered');
  const large = async () => { calls++; return 5000; };
  await cache('big', large);
  await cache('big', large);
  assert.is(calls, 3, 'remembered');
});

test('a time to live of 0 computes every time', async () => {
  const cache = shortCache<number>({ ttlMs: 0, now: () => 0 });
  let calls = 0;
  await cache('k', async () => ++calls);
  await cache('k', async () => ++calls);
  assert.is(calls, 2);
});

test('the number of entries stays bounded', async () => {
  let clock = 0;
  const cache = shortCache<number>({ ttlMs: 10, maxEntries: 3, now: () => clock });
  for (let i = 0; i < 10; i++) { clock += 1; await cache(`k${i}`, async () => i); }
  let recomputed = 0;
  await cache('k0', async () => { recomputed++; return 0; });
  assert.is(recomputed, 1, 'evicted long ago');
});

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

test('an expired answer is not held: computing another key lets it go (a map of 10,000 devices is 2.5 MB per caller)', async () => {
  let clock = 0;
  const cache = shortCache<object>({ ttlMs: 1000, now: () => clock });
  const held = await (async () => new WeakRef(await cache('user 1', async () => ({ map: 'x'.repeat(1_000_000) }))))();
  clock = 5_000;
  await cache('user 2', async () => ({}));
  // A WeakRef's target lives to the end of the job that made it: collect in a later one.
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  assert.is(held.deref(), undefined, 'the expired answer is still held');
});

test.run();
