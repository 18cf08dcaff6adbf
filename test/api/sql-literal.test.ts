// Computed values spelled into SQL text (db/sql-literal.ts): only digits and ISO punctuation, the same for
// an instant given as ISO text or epoch milliseconds.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { integerLiteral, timestamptzLiteral } from '../../db/sql-literal.js';

const test = suite('sql literals');

test('an instant is re-printed in UTC, whatever form it came in', () => {
  const ms = Date.parse('2026-03-29T01:30:00+02:00');
  assert.is(timestamptzLiteral(ms), "'2026-03-28T23:30:00.000Z'::timestamptz");
  assert.is(timestamptzLiteral('2026-03-29T01:30:00+02:00'), timestamptzLiteral(ms));
  assert.throws(() => timestamptzLiteral("2026-01-01'; drop table x; --"), RangeError);
});

test('an integer is its digits, a fraction cut', () => {
  assert.is(integerLiteral(10_050), '10050');
  assert.is(integerLiteral(49.9), '49');
});

test.run();
