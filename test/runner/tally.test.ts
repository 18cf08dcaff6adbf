// The resilience and security counts reach the closing summary even when uvu's progress dots share the line.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseTallies } from '../helpers/tally.js';

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

test.run();
