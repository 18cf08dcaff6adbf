// A tallying suite whose set-up fails before it counts anything (test/runner/tally.test.ts runs it).
import { test } from 'uvu';
import { reportTally } from '../../helpers/tally.js';

const TOTAL = 20_000;
let outcome: { stored: number; lost: number } | null = null;

test.before(() => { throw new Error('the servers of this suite are away'); });
test.after(() => {
  reportTally('runner/uncounted', outcome && { messagesSent: TOTAL, messagesStored: outcome.stored, lost: outcome.lost });
});
test('never reached', () => { outcome = { stored: TOTAL, lost: 0 }; });
test.run();
