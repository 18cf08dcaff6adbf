// The resilience and security counts reach the closing summary even when uvu's progress dots share the line.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runSuite } from '../helpers/run-suite.js';
import { parseTallies, tallySummary } from '../helpers/tally.js';

const root = new URL('../../', import.meta.url).pathname;

test('TALLY lines are found after progress dots and summed', () => {
  const output = [
    '• • • TALLY {"suite":"a","attacksTried":3,"attacksRefused":3}',
    'TALLY {"suite":"b","messagesSent":10,"messagesStored":10}',
    '  Total:     3',
  ].join('\n');
  const t = parseTallies(output);
  assert.is(t?.attacksTried, 3);
  assert.is(t?.attacksRefused, 3);
  assert.is(t?.messagesSent, 10);
  assert.is(t?.duplicated, 0);
});

test('no TALLY line: nothing to report', () => {
  assert.is(parseTallies('• • •\n  Total:     3'), null);
});

test('a suite that fails before counting is "not counted", never "lost 20000"', async () => {
  const run = await runSuite('test/runner/suites/uncounted.ts', { cwd: root, echo: false });
  assert.is(run.tally, null, 'nothing summed');
  assert.equal(run.notCounted, ['runner/uncounted']);
  const summary = tallySummary(run.tally, run.notCounted).join('\n');
  assert.match(summary, 'not counted: runner/uncounted');
  assert.not.match(summary, /lost/);
});

test.run();
