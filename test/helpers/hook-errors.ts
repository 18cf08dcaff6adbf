// Loaded before every suite (test/run.ts): uvu runs a suite's test.before and test.after hooks inside a
// try/finally whose `return` drops their error, so a suite whose set-up failed printed "(0 / 1)" and nothing
// else. This wraps the hooks of uvu's `test` so that the error is printed, with the hook it came from, before uvu
// drops it; a suite made with suite() calls printHookErrors on itself for the same.
import { test, type Test } from 'uvu';

type Hook = Parameters<typeof test.before>[0];

function printing(kind: string, register: (fn: Hook) => void, failRun: boolean): (fn: Hook) => void {
  return (fn) => register(async (state) => {
    try {
      await fn(state);
    } catch (err) {
      console.error(`   FAIL  test.${kind}: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
      if (failRun) process.exitCode = 1;
      throw err;
    }
  });
}

test.before = Object.assign(printing('before', test.before, false), test.before);
test.after = Object.assign(printing('after', test.after, false), test.after);

/** A suite()'s hooks wrapped as `test`'s are, the run failed too when one throws (uvu would report the suite's tests alone). */
export function printHookErrors(suite: Test): Test {
  suite.before = Object.assign(printing('before', suite.before, true), suite.before);
  suite.after = Object.assign(printing('after', suite.after, true), suite.after);
  return suite;
}
