// The storage bench's floor rows (bench/read-rows.ts FLOOR_ROWS) are what they say: the "no statement" row's IMEI
// is refused before any query (reach.ts isPlausibleImei), the "one statement" row's is asked of the database.
// Session 33 found the first was a plausible IMEI ('not-an-imei'): both rows ran the reach statement.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isPlausibleImei } from '../../api/device-records/reach.js';
import { FLOOR_ROWS } from '../../bench/read-rows.js';

const test = suite('floor rows');

const imeiOf = (endpoint: string): string => {
  const row = FLOOR_ROWS.find((r) => r.endpoint.startsWith(endpoint));
  assert.ok(row, endpoint);
  return decodeURIComponent(new URL(row.path, 'http://x').pathname.split('/').pop()!);
};

test('the floor without a statement asks for an IMEI no query is made for', () => {
  assert.not.ok(isPlausibleImei(imeiOf('floor: no statement')));
});

test('the floor with one statement asks for an IMEI the reach statement looks up', () => {
  assert.ok(isPlausibleImei(imeiOf('floor: one statement')));
});

test.run();
