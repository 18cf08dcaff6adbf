// The per-device cache of dedup and fault-compute (stages/runtime/device-cache.ts) across a clear that comes
// while a batch is under way. kafkajs runs one fetcher per broker; a fetch that meets stale metadata (a broker
// gone, leadership moved) joins the group again from inside that fetcher (consumerGroup.recoverFromFetch), so
// the GROUP_JOIN, and with it the stage's onRevoke/onAssign and the clear, can come while another fetcher's
// batch is being handled. That batch was begun against the state from before the join: it must not put it
// back into the cache the join emptied (the member may have been fenced meanwhile, and another one moved on).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deviceCache } from '../../stages/runtime/device-cache.js';

/** A cache whose loads say which load they were: `load 1`, `load 2`, ... */
function counting() {
  let loads = 0;
  return deviceCache<string>(async (imeis) => { loads++; return new Map(imeis.map((imei) => [imei, `load ${loads}`])); });
}

test('a batch begun before a clear does not write its state into the cache after it', async () => {
  const cache = counting();
  const view = await cache.begin(['a']);
  view.set('a', 'after the old batch');
  cache.clear(); // a join while the batch is under way
  view.commit(); // the batch was sent
  const next = await cache.begin(['a']);
  assert.is(next.get('a'), 'load 2', 'the next batch reads the device afresh');
});

test('a batch begun before a clear keeps reading the state it began with', async () => {
  const cache = counting();
  const view = await cache.begin(['a', 'b']);
  cache.clear();
  assert.is(view.get('b'), 'load 1');
});

test('what a batch loaded while a clear came is not cached either', async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => { release = resolve; });
  let loads = 0;
  const cache = deviceCache<string>(async (imeis) => { loads++; if (loads === 1) await gate; return new Map(imeis.map((imei) => [imei, `load ${loads}`])); });
  const pending = cache.begin(['a']);
  cache.clear(); // the join comes while the batch's load is under way
  release();
  assert.is((await pending).get('a'), 'load 1', 'the batch works on what it loaded');
  assert.is((await cache.begin(['a'])).get('a'), 'load 2', 'the next batch loads afresh');
});

test('without a clear, a sent batch advances the cache', async () => {
  const cache = counting();
  const view = await cache.begin(['a']);
  view.set('a', 'advanced');
  view.commit();
  assert.is((await cache.begin(['a'])).get('a'), 'advanced');
});

test.run();
