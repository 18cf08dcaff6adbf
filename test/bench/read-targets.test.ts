// The storage bench's targets (support/read-targets.ts): which rows are held to 0.3x and which to 0.5x, which are
// excepted from the latency and growth targets, and a verdict that fails a row that misses.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cpuRatioTarget, isDeepOffsetPage, isOffsetPage, judge, type SideFigures } from '../../support/read-targets.js';

const test = suite('read targets');

const side = (cpu: number, alone: number, p99: number, failed = 0): SideFigures => ({ apiCpuMs: cpu / 2, postgresCpuMs: cpu / 2, alone, p50: alone, p99, failed });

test('first and keyset pages of the heavy routes are held to 0.3x, OFFSET pages and the rest to 0.5x', () => {
  for (const row of ['data-log first page', 'data-log after 10,000 rows (keyset)', 'critical-data 7 days', 'device-summary']) assert.is(cpuRatioTarget(row), 0.3, row);
  for (const row of ['data-log page 200', 'data-log 7 days page 100', 'events (one device)', 'map-data (gzip)', 'load-history (one device)']) assert.is(cpuRatioTarget(row), 0.5, row);
});

test('OFFSET pages: every one is excepted from growth, only those deeper than 100 from the p99 target', () => {
  assert.ok(isOffsetPage('data-log page 200'));
  assert.ok(isDeepOffsetPage('data-log page 200'));
  assert.ok(isOffsetPage('data-log 7 days page 100'));
  assert.not.ok(isDeepOffsetPage('data-log 7 days page 100'));
  assert.not.ok(isOffsetPage('data-log first page'));
});

test('a row that misses fails its verdict; one that meets passes', () => {
  const met = judge('data-log first page', side(10, 10, 100), side(3, 4, 20), { largest: true, smallest: side(0, 3.5, 0) });
  assert.equal([met.cpuMet, met.p99Met, met.growthMet], [true, true, true]);
  const missed = judge('data-log first page', side(10, 10, 100), side(3.5, 6, 60), { largest: true, smallest: side(0, 4, 0) });
  assert.equal([missed.cpuMet, missed.p99Met, missed.growthMet], [false, false, false]);
  assert.is(judge('data-log first page', side(10, 10, 10), side(1, 1, 10, 3), { largest: true, smallest: side(0, 1, 0) }).p99Met, false, 'a failed request misses');
});

test('latency and growth are judged only at the largest size, and not for deep OFFSET pages', () => {
  const small = judge('events (one device)', side(4, 4, 100), side(1, 1, 100), { largest: false, smallest: null });
  assert.equal([small.p99Met, small.growth], [null, null]);
  const deep = judge('data-log page 200', side(30, 30, 9000), side(25, 30, 9000), { largest: true, smallest: side(0, 10, 0) });
  assert.equal([deep.p99Met, deep.growth, deep.cpuMet], [null, null, false]);
});

test('growth is judged on the same answer: a row whose answer holds more rows at the larger size is reported, not judged', () => {
  const denser = judge('events (one device, 7 days)', side(4, 4, 10), { ...side(2, 3.5, 10), items: 17 }, { largest: true, smallest: { ...side(1, 1.7, 5), items: 1 } });
  assert.equal([denser.growth, denser.growthMet, denser.answerGrew], [null, null, [1, 17]]);
  const same = judge('events (one device)', side(4, 4, 10), { ...side(2, 3.5, 10), items: 50 }, { largest: true, smallest: { ...side(1, 1.7, 5), items: 50 } });
  assert.equal([same.growthMet, same.answerGrew], [false, null]);
});

test.run();
