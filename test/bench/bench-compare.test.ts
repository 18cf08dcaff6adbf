// The A/B report's arithmetic: ratios are taken inside a round, and a verdict needs every round to agree.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compareMarkdown, compareRounds, verdict, type RoundPair, type ScenarioFigures } from '../../support/bench-compare.js';

const result = (throughput: number, cpuMicros: number, postgresCpuPerSecond?: number): ScenarioFigures => ({
  throughput: { median: throughput, min: throughput, max: throughput },
  cpuMicrosPerCheckIn: { median: cpuMicros, min: cpuMicros, max: cpuMicros },
  ...(postgresCpuPerSecond === undefined ? {} : { cpuPerSecond: { postgres: postgresCpuPerSecond } }),
});

const pair = (round: number, newer: ScenarioFigures, older: ScenarioFigures): RoundPair => ({ round, scenario: 'pipeline', newer, older });

test('ratios are new/old per round; a round under load moves both sides, not the ratio', () => {
  // Round 2 ran on a loaded machine: both sides lost half their throughput.
  const rows = compareRounds([pair(1, result(2000, 200), result(1000, 400)), pair(2, result(1000, 400), result(500, 800)), pair(3, result(1800, 220), result(900, 440))]);
  const cpu = rows.find((r) => r.figure === 'faultline CPU per check-in')!;
  assert.is(cpu.ratio.median, 0.5);
  assert.is(cpu.ratio.min, 0.5);
  assert.is(cpu.ratio.max, 0.5);
  assert.is(verdict(cpu), 'better');
  const rate = rows.find((r) => r.figure === 'check-ins/s')!;
  assert.is(rate.ratio.median, 2);
  assert.is(verdict(rate), 'better');
});

test('a verdict needs every round on one side of 1', () => {
  const rows = compareRounds([pair(1, result(1000, 190), result(1000, 200)), pair(2, result(1000, 210), result(1000, 200))]);
  assert.is(verdict(rows.find((r) => r.figure === 'faultline CPU per check-in')!), 'within noise');
  const worse = compareRounds([pair(1, result(900, 250), result(1000, 200)), pair(2, result(950, 230), result(1000, 200))]);
  assert.is(verdict(worse.find((r) => r.figure === 'faultline CPU per check-in')!), 'worse');
  assert.is(verdict(worse.find((r) => r.figure === 'check-ins/s')!), 'worse');
});

test('Postgres CPU per check-in comes from its CPU seconds per wall second over the throughput', () => {
  const rows = compareRounds([pair(1, result(1000, 200, 0.1), result(1000, 200, 0.2))]);
  const pg = rows.find((r) => r.figure === 'Postgres CPU per check-in')!;
  assert.is(Math.round(pg.newer.median), 100);
  assert.is(Math.round(pg.older.median), 200);
  // A figure only one side reports (no latency here) is left out rather than shown as a ratio of nothing.
  assert.not.ok(rows.some((r) => r.figure === 'latency p50'));
});

test('the bridge CPU per check-in is read where the bridge ran apart, and left out for a result without it', () => {
  const apart = (throughput: number, bridge: number): ScenarioFigures => ({ ...result(throughput, 500), cpuPerSecond: { faultline: 0.6, bridge, pipeline: 0.6 - bridge } });
  const rows = compareRounds([pair(1, apart(1000, 0.1), apart(800, 0.2)), pair(2, apart(1000, 0.12), apart(1000, 0.3))]);
  const bridge = rows.find((r) => r.figure === 'bridge CPU per check-in')!;
  // CPU seconds per wall second over check-ins per second: 0.1 s/s at 1,000/s is 100 µs per check-in.
  assert.equal([bridge.newer.min, bridge.newer.max].map(Math.round), [100, 120]);
  assert.equal([bridge.older.min, bridge.older.max].map(Math.round), [250, 300]);
  assert.equal([bridge.ratio.min, bridge.ratio.max].map((x) => Math.round(x * 100) / 100), [0.4, 0.4]);
  assert.is(verdict(bridge), 'better');
  // An old result without the split (its harness summed the processes) and one with no CPU at all: no row, no error.
  const lacking = compareRounds([pair(1, apart(1000, 0.1), result(1000, 500, 0.2)), pair(2, apart(1000, 0.1), result(1000, 500))]);
  assert.not.ok(lacking.some((r) => r.figure === 'bridge CPU per check-in'));
  assert.ok(lacking.some((r) => r.figure === 'faultline CPU per check-in'));
});

test('the report names both commits and has one row per figure', () => {
  const rows = compareRounds([pair(1, result(2000, 200), result(1000, 400))]);
  const md = compareMarkdown({ newer: 'new abc', older: 'old def', date: '2026-11-25', rounds: 1, options: 'x', machine: 'm' }, rows);
  assert.match(md, /new abc against old def/);
  assert.is(md.split('\n').filter((l) => l.startsWith('| pipeline |')).length, rows.length);
});

test.run();
