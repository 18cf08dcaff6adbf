// The partition cut a fleet should pick (domain/partition-granularity.ts, docs/operations.md#sizing) and the
// setting that chooses it (PARTITION_GRANULARITY, config/settings.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadSettings } from '../../config/settings.js';
import { checkInsPerPartition, MAX_CHECKINS_PER_PARTITION, partitionsPerTable, recommendGranularity } from '../../domain/partition-granularity.js';

const EVERY_15_MIN = 96;

test('the coarsest cut whose largest partition stays within the bound', () => {
  // [devices, check-ins per device per day, expected]: the sizing page's table.
  const rows: [number, number, string][] = [
    [0, EVERY_15_MIN, 'month'],
    [1_000, EVERY_15_MIN, 'month'],
    [10_000, EVERY_15_MIN, 'month'], // 29.8 M in a 31-day month
    [16_000, EVERY_15_MIN, 'month'], // 47.6 M in a 31-day month
    [20_000, EVERY_15_MIN, 'week'], // 59.5 M a month, 19.2 M in the ten-day piece
    [50_000, EVERY_15_MIN, 'week'], // 48 M in the ten-day piece
    [60_000, EVERY_15_MIN, 'day'], // 57.6 M in ten days, 5.8 M a day
    [1_000_000, EVERY_15_MIN, 'day'], // 96 M a day: nothing finer is offered
    [10_000, 24, 'month'],
    [200_000, 24, 'week'],
  ];
  for (const [devices, rate, want] of rows) assert.is(recommendGranularity({ devices, checkInsPerDevicePerDay: rate }), want, `${devices} devices x ${rate}/day`);
});

test('the bound is met exactly at the edge, and passed by one check-in more', () => {
  // A month of 31 days at one check-in a device a day: devices = bound / 31 fills the month partition exactly.
  const devices = Math.floor(MAX_CHECKINS_PER_PARTITION / 31);
  assert.ok(checkInsPerPartition({ devices, checkInsPerDevicePerDay: 1 }, 'month') <= MAX_CHECKINS_PER_PARTITION);
  assert.is(recommendGranularity({ devices, checkInsPerDevicePerDay: 1 }), 'month');
  assert.is(recommendGranularity({ devices: devices + 1, checkInsPerDevicePerDay: 1 }), 'week');
});

test('a nonsense fleet is refused, not sized', () => {
  assert.throws(() => recommendGranularity({ devices: -1, checkInsPerDevicePerDay: 96 }), /non-negative/);
  assert.throws(() => recommendGranularity({ devices: Number.NaN, checkInsPerDevicePerDay: 96 }), /non-negative/);
});

test('partitions per table: kept months, the current one and those ahead, times the pieces of a month', () => {
  assert.is(partitionsPerTable('month', 24, 3), 28);
  assert.is(partitionsPerTable('week', 24, 3), 112);
  assert.is(partitionsPerTable('day', 24, 3), 853);
});

test('PARTITION_GRANULARITY: month unless set; month, week or day; anything else refused by name', () => {
  assert.is(loadSettings({}).partitionGranularity, 'month');
  for (const g of ['month', 'week', 'day']) assert.is(loadSettings({ PARTITION_GRANULARITY: g }).partitionGranularity, g);
  assert.is(loadSettings({ PARTITION_GRANULARITY: ' day ' }).partitionGranularity, 'day');
  assert.throws(() => loadSettings({ PARTITION_GRANULARITY: 'hour' }), /PARTITION_GRANULARITY: "hour" is not one of month, week, day/);
  assert.throws(() => loadSettings({ PARTITION_GRANULARITY: 'Month' }), /PARTITION_GRANULARITY/);
});

test.run();
