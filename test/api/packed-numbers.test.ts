// A select list's double precision columns packed into one float8[] text and written as Postgres sent them
// (api/device-records/packed-numbers.ts): the list it sends, the rows it makes of what comes back, and each
// element's JSON text against what the writer wrote from the number pg parsed (row-json.ts jsonValue).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonNumberText, packedSelect, unpackNumbers } from '../../api/device-records/packed-numbers.js';
import { jsonValue } from '../../api/device-records/row-json.js';

test('each element is the JSON text of the number pg parses from it: float8out spellings JavaScript spells otherwise included', () => {
  for (const element of ['0', '-0', '1.5', '-2', '100', '0.1', '0.0001', '1e-05', '5e-324', '123456789012345', '1e+15', '1e+21', '1.7976931348623157e+308', 'NaN', 'Infinity', '-Infinity']) {
    assert.is(jsonNumberText(element), jsonValue(parseFloat(element)), element);
  }
  assert.is(jsonNumberText('NULL'), 'null');
  // extra_float_digits 0 and below round the largest doubles up past them: parseFloat reads Infinity, written null.
  for (const element of ['1.79769313486232e+308', '-2e+308']) assert.is(jsonNumberText(element), 'null', element);
});

test('a float8[] text reads element by element', () => {
  assert.equal(unpackNumbers('{}'), []);
  assert.equal(unpackNumbers('{1.5,NULL,-2,1e-05,NaN}'), ['1.5', 'null', '-2', '0.00001', 'null']);
});

test('the numbers go into one column where the first of them stood; the row comes back in the plain order', () => {
  const s = packedSelect([{ sql: 'a' }, { sql: 'x', float8: true }, { sql: 'b' }, { sql: 'y', float8: true }, { sql: 'z', float8: true }, { sql: 'c' }]);
  assert.is(s.selectList, 'a, array[x, y, z]::text, b, c');
  assert.equal(s.unpack(['A', '{1,NULL,3.25}', 'B', 'C']), ['A', '1', 'B', 'null', '3.25', 'C']);
});

test('columns selected after the list (a keyset cursor) stay at the end of the row', () => {
  const s = packedSelect([{ sql: 'x', float8: true }, { sql: 'a' }]);
  assert.is(s.selectList, 'array[x]::text, a');
  assert.equal(s.unpack(['{2}', 'A', 'cursor-1', 7]), ['2', 'A', 'cursor-1', 7]);
});

test('without numbers: the plain list, rows as they come', () => {
  const s = packedSelect([{ sql: 'a' }, { sql: 'b' }]);
  assert.is(s.selectList, 'a, b');
  const row = ['A', 'B'];
  assert.is(s.unpack(row), row);
});

test.run();
