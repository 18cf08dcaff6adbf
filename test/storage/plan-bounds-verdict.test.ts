// The plan-bound test's list of statements known unbounded can only shrink (issue 45, docs/decisions.md#reads-bounded-by-the-answer):
// a statement that grows and is not listed fails it, and so does a listed one that stays bounded (or is no
// longer asked), which must then be taken off the list.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { verdict } from '../integration/storage/plan-bounds.js';

const test = suite('plan bounds: the known-unbounded list');

test('an unbounded statement not listed is unexpected', () => {
  assert.equal(verdict(['a statement 3'], []), { unexpected: ['a statement 3'], nowBounded: [] });
});

test('a listed statement that is bounded now is reported, to be taken off the list', () => {
  assert.equal(verdict([], ['a statement 3']), { unexpected: [], nowBounded: ['a statement 3'] });
  assert.equal(verdict(['b statement 1'], ['a statement 3', 'b statement 1']), { unexpected: [], nowBounded: ['a statement 3'] });
});

test('listed and still unbounded: nothing to say', () => {
  assert.equal(verdict(['a statement 3'], ['a statement 3']), { unexpected: [], nowBounded: [] });
});

test.run();
