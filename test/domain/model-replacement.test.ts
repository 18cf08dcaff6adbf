import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { replaceModel, validateModelMap, type ModelMap } from '../../domain/model-replacement.js';
import { fixtureCheckIn } from './builders.js';
import { expectedFor, fixtureJson } from './fixtures.js';

const DEFAULT_MAP_FILE = new URL('../../schemas/config/model-map.json', import.meta.url);

function defaultMap(): ModelMap {
  const result = validateModelMap(JSON.parse(readFileSync(DEFAULT_MAP_FILE, 'utf8')));
  if (!result.ok) throw new Error(result.reason);
  return result.value;
}

test('schemas/config/model-map.json is valid and equals the fixture', () => {
  const map = defaultMap();
  assert.equal(Object.fromEntries(map), fixtureJson('model-map.json'));
  // the three mappings the incumbent system documents (docs/decisions.md)
  assert.is(map.get('FI-5A 3-C04TRB-X-1(80)EU'), 'FI-5A E04TRB-X');
  assert.is(map.get('FI-5A 3-C04TRB-Y-1(80)EU'), 'FI-5A E04TRB-Y');
  assert.is(map.get('FI-5A 3-CS24TNB-Z-2-3U'), 'FI-5A F24TNB-Y');
});

// spec 3.3: [reported model, stored model]
const rows: [string, string | null, string | null][] = [
  ['a key is replaced', 'FI-2000-A', 'FCI-2000'],
  ['another key to the same name', 'FI2000A', 'FCI-2000'],
  ['key with spaces and parentheses', 'FI-5A 3-C04TRB-X-1(80)EU', 'FI-5A E04TRB-X'],
  ['not a key: kept', 'FCI-3000', 'FCI-3000'],
  ['exact match: case counts', 'FCI3K', 'FCI3K'],
  ['exact match: lowercase key', 'fci3k', 'FCI-3000'],
  ['exact match: no trimming', 'FI-2000-A ', 'FI-2000-A '],
  ['exact match: no prefix match', 'FI-2000', 'FI-2000'],
  ['a standard name is not replaced again', 'FCI-2000', 'FCI-2000'],
  ['no model stays null', null, null],
  ['empty string kept', '', ''],
  ['prototype names are not keys', 'constructor', 'constructor'],
  ['__proto__ is not a key', '__proto__', '__proto__'],
];
for (const [name, reported, stored] of rows) {
  test(`replaceModel: ${name}`, () => {
    assert.is(replaceModel(reported, defaultMap()), stored);
  });
}

test('fixture 008 -> FCI-2000 and fixture 006 -> DM1 (expected.json)', () => {
  for (const file of ['008-model-replaced.json', '006-dm1-fault-initial.json']) {
    assert.is(replaceModel(fixtureCheckIn(file).device_data.model, defaultMap()), expectedFor(file).model);
  }
});

// validateModelMap: [value, ok, reason substring]
const shapes: [string, unknown, boolean, string][] = [
  ['empty object', {}, true, ''],
  ['one mapping', { a: 'b' }, true, ''],
  ['key mapping to itself', { a: 'a' }, true, ''],
  ['array', [['a', 'b']], false, 'must be a JSON object'],
  ['null', null, false, 'must be a JSON object'],
  ['string', 'a=b', false, 'must be a JSON object'],
  ['number value', { a: 1 }, false, '"a" must map to a non-empty string'],
  ['empty value', { a: '' }, false, '"a" must map to a non-empty string'],
  ['blank value', { a: '  ' }, false, '"a" must map to a non-empty string'],
  ['null value', { a: null }, false, '"a" must map to a non-empty string'],
  ['empty key', { '': 'b' }, false, 'a key is empty'],
  ['chain a -> b -> c', { a: 'b', b: 'c' }, false, '"a" maps to "b", which is itself replaced'],
];
for (const [name, value, ok, reason] of shapes) {
  test(`validateModelMap: ${name}`, () => {
    const result = validateModelMap(value);
    assert.is(result.ok, ok);
    if (!result.ok) assert.ok(result.reason.includes(reason), result.reason);
  });
}

test('validateModelMap: a __proto__ key from JSON is an ordinary key', () => {
  const result = validateModelMap(JSON.parse('{"__proto__": "X", "a": "b"}'));
  assert.ok(result.ok);
  if (result.ok) assert.equal([result.value.get('__proto__'), result.value.size], ['X', 2]);
  assert.is(({} as Record<string, unknown>).X, undefined);
});

test.run();
