import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { breakAtGaps } from '../../portal/src/chart-gaps.js';

const H = 3_600_000;
const at = (...hours: number[]) => hours.map((h, i) => ({ t: h * H, v: i + 1 }));

test('a gap longer than twice the usual check-in interval gets one null point in its middle', () => {
  const out = breakAtGaps(at(0, 1, 2, 3, 10, 11));
  assert.equal(out.map((p) => [p.t / H, p.v]), [[0, 1], [1, 2], [2, 3], [3, 4], [6.5, null], [10, 5], [11, 6]]);
});

test('exactly twice the interval is not a gap; irregular but steady check-ins stay joined', () => {
  assert.equal(breakAtGaps(at(0, 1, 2, 4, 5)).filter((p) => p.v === null), []);
  assert.equal(breakAtGaps(at(0, 1, 2.5, 3.5, 5)).filter((p) => p.v === null), []);
});

test('too few points to know an interval: unchanged', () => {
  assert.equal(breakAtGaps(at(0, 50)), at(0, 50));
  assert.equal(breakAtGaps([]), []);
});

test.run();
