// A suite whose set-up throws (test/runner/hook-errors.test.ts runs it as test/run.ts runs a suite).
import { test } from 'uvu';

test.before(() => { throw new Error('the set-up of this suite broke'); });
test('never reached', () => {});
test.run();
