// A select list's double precision columns packed into one float8[] text and set back in place
// (api/device-records/packed-numbers.ts): the list it sends, and the rows it makes of what comes back.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { packedSelect, unpackNumbers } from '../../api/device-records/packed-numbers.js';

test('a float8[] text reads as pg reads each element: NULL null, the rest numbers, NaN and the infinities included', () => {
  assert.equal(unpackNumbers('{}'), []);
  assert.equal(unpackNumbers('{1.5,NULL,-2,1e-05,1e+300}'), [1.5, null, -2, 1e-5, 1e300]);
  const [nan, inf, minusInf, minusZero] = unpackNumbers('{NaN,Infinity,-Infinity,-0}');
  assert.ok(Number.isNaN(nan));
  assert.is(inf, Infinity);
  assert.is(minusInf, -Infinity);
  assert.ok(Object.is(minusZero, -0));
});

test('the numbers go into one column where the first of them stood; the row comes back in the plain order', () => {
  const s = packedSelect([{ sql: 'a' }, { sql: 'x', float8: true }, { sql: 'b' }, { sql: 'y', float8: true }, { sql: 'z', float8: true }, { sql: 'c' }]);
  assert.is(s.selectList, 'a, array[x, y, z]::text, b, c');
  assert.equal(s.unpack(['A', '{1,NULL,3.25}', 'B', 'C']), ['A', 1, 'B', null, 3.25, 'C']);
});

test('columns selected after the list (a keyset cursor) stay at the end of the row', () => {
  const s = packedSelect([{ sql: 'x', float8: true }, { sql: 'y', float8: true }, { sql: 'a' }]);
  assert.is(s.selectList, 'array[x, y]::text, a');
  assert.equal(s.unpack(['{2,4}', 'A', 'cursor-1', 7]), [2, 4, 'A', 'cursor-1', 7]);
});

test('fewer than two numbers: the plain list, rows as they come', () => {
  const s = packedSelect([{ sql: 'a' }, { sql: 'x', float8: true }]);
  assert.is(s.selectList, 'a, x');
  const row = ['A', 1];
  assert.is(s.unpack(row), row);
});

test.run();
