// The device page's current charts start at 0 A whatever the data (issue: a y-axis from 0).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { currentAxisRange } from '../../portal/src/chart-scale.js';

test('the axis starts at 0 and ends a tenth above the highest current', () => {
  assert.equal(currentAxisRange(2.5), [0, 2.75]);
  const [from, to] = currentAxisRange(800);
  assert.is(from, 0);
  assert.ok(Math.abs(to - 880) < 1e-9, String(to));
});

test('no data or only zeros still gives a 0 to 1 A axis', () => {
  assert.equal(currentAxisRange(null), [0, 1]);
  assert.equal(currentAxisRange(0), [0, 1]);
});

test.run();
