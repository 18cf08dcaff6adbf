// The storage bench's floor rows (bench/read-rows.ts FLOOR_ROWS) are what they say: the "no statement" row's IMEI
// (support/read-targets.ts IMPLAUSIBLE_IMEI) is refused before any query (reach.ts isPlausibleImei). Session 33
// found it was a plausible one ('not-an-imei'): both floor rows ran the reach statement.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isPlausibleImei } from '../../api/device-records/reach.js';
import { IMPLAUSIBLE_IMEI } from '../../support/read-targets.js';

const test = suite('floor rows');

test('the floor without a statement asks for an IMEI no query is made for', () => {
  assert.not.ok(isPlausibleImei(IMPLAUSIBLE_IMEI));
  assert.ok(isPlausibleImei('not-an-imei'), 'the IMEI the row asked for before is plausible: it was looked up');
});

test.run();
