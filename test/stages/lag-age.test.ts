// faultline_consumer_lag_seconds' rule (stages/runtime/lag-age.ts): exact when the record's time is known, else
// a lower bound from when the end offset was first seen past the committed one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LagAges } from '../../stages/runtime/lag-age.js';

const lag = (next: number, end: number, oldestTimestamp?: number) => ({ partition: 0, next: String(next), end: String(end), ...(oldestTimestamp === undefined ? {} : { oldestTimestamp }) });

test('caught up: 0, whatever was seen before', () => {
  const ages = new LagAges();
  assert.is(ages.age('a', lag(5, 10), 1_000), 0);
  assert.is(ages.age('a', lag(10, 10), 60_000), 0);
});

test('the oldest record known: its age', () => {
  assert.is(new LagAges().age('a', lag(5, 10, 1_000), 31_000), 30);
});

test('unknown: at least as old as the first scrape that saw the end pass the committed offset, rising while stopped, falling as it catches up', () => {
  const ages = new LagAges();
  assert.is(ages.age('a', lag(10, 10), 0), 0);
  assert.is(ages.age('a', lag(10, 20), 15_000), 0, 'first seen now');
  assert.is(ages.age('a', lag(10, 35), 30_000), 15, 'record 10 existed at 15 s');
  assert.is(ages.age('a', lag(10, 40), 45_000), 30, 'still stopped: rising');
  // The consumer resumes: records 20..34 were first seen at 30 s.
  assert.is(ages.age('a', lag(25, 40), 50_000), 20);
  assert.is(ages.age('a', lag(36, 40), 55_000), 10, 'record 36 first seen at 45 s');
  assert.is(ages.age('a', lag(40, 40), 60_000), 0);
});

test('partitions and consumers are kept apart; a long stop keeps the oldest sample', () => {
  const ages = new LagAges();
  ages.age('a/0', lag(0, 1), 0);
  assert.is(ages.age('b/0', lag(0, 1), 10_000), 0);
  for (let i = 1; i <= 2_000; i++) ages.age('a/0', lag(0, 1 + i), i * 1_000);
  assert.is(ages.age('a/0', lag(0, 3_000), 3_000_000), 3_000);
});

test.run();
