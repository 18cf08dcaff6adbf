// Loaded before every suite (test/run.ts): uvu runs a suite's test.before and test.after hooks inside a
// try/finally whose `return` drops their error, so a suite whose set-up failed printed "(0 / 1)" and nothing
// else. This wraps the hooks of uvu's `test` (every suite here but the few that call suite(), whose set-up
// lives in their tests) so that the error is printed, with the hook it came from, before uvu drops it.
import { test } from 'uvu';

type Hook = Parameters<typeof test.before>[0];

function printing(kind: string, register: (fn: Hook) => void): (fn: Hook) => void {
  return (fn) => register(async (state) => {
    try {
      await fn(state);
    } catch (err) {
      console.error(`   FAIL  test.${kind}: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
      throw err;
    }
  });
}

test.before = Object.assign(printing('before', test.before), test.before);
test.after = Object.assign(printing('after', test.after), test.after);
