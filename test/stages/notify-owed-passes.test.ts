// The owed-effects passes of notify (stages/notify/owed.ts applyInPasses, docs/decisions.md#notify-sweep-stops):
// while notify is far behind, the devices owed never run out, and a drain must still end.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyInPasses } from '../../stages/notify/owed.js';

/** A find that never runs dry (notify more than NOTIFY_SWEEP_AFTER_SECONDS behind), failing loudly past `most` passes. */
function endless(most: number) {
  let passes = 0;
  return {
    get passes() { return passes; },
    find: async (): Promise<string[]> => {
      if (++passes > most) throw new Error(`the sweep did not stop after ${most} passes`);
      return ['356000000000001', '356000000000002'];
    },
  };
}

test('a sweep that never runs dry stops at the pass after the stop flag is set', async () => {
  let stopping = false;
  const owed = endless(1000);
  let applied = 0;
  const apply = async (imeis: readonly string[]) => {
    applied += imeis.length;
    if (applied === 6) stopping = true; // the drain's onRevoke, during the third pass
    return imeis.length;
  };
  assert.is(await applyInPasses('owed too long', owed.find, apply, () => stopping), 6);
  assert.is(owed.passes, 3, 'no pass after the flag');
});

test('the applier is handed the flag, to stop between its chunks', async () => {
  let stopping = false;
  let seen: (() => boolean) | undefined;
  await applyInPasses('owed too long', endless(1000).find, async (_imeis, stopped) => { seen = stopped; stopping = true; return 1; }, () => stopping);
  assert.ok(seen?.(), 'the applier reads the same flag');
});

test('a failing device is retried alone and then skipped; the stop flag ends the one-by-one retry too', async () => {
  let stopping = false;
  const tried: string[] = [];
  const skipped: (readonly string[])[] = [];
  const find = async (skip: readonly string[]) => { skipped.push([...skip]); return skip.length ? [] : ['a', 'b', 'c']; };
  const apply = async (imeis: readonly string[]) => {
    tried.push(imeis.join());
    if (imeis.length > 1 || imeis[0] === 'a') throw new Error('bad record');
    stopping = true;
    return 1;
  };
  assert.is(await applyInPasses('at assignment', find, apply, () => stopping), 1);
  assert.equal(tried, ['a,b,c', 'a', 'b'], 'c is left owed once stopping');
  assert.equal(skipped, [[]], 'no pass after the flag');
});

test.run();
