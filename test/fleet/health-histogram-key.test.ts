// The RSSI histogram's key (fleet/health-day.ts histogramKey; docs/decisions.md#review-of-the-held-clear-and-the-rollup):
// whole and half dB readings are kept exactly, others to the nearest half dB, everything within +-255 dB, so a
// hostile device's thousands of distinct readings a day make a bounded row. No servers.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { foldCheckIn, histogramKey, histogramMedian, HISTOGRAM, HISTOGRAM_MAX_VALUES, type HealthDay } from '../../fleet/health-day.js';
import type { DeviceData } from '../../domain/checkin.js';
import { emptyTally, reportTally } from '../helpers/tally.js';

const tally = emptyTally();
test.after(() => reportTally('fleet health histogram key', tally));

test('whole and half dB readings are their own keys; others go to the nearest half dB, halves up', () => {
  for (const v of [-110, -70.5, -70, -0.5, 0, 31, 99]) assert.is(histogramKey(v), v);
  assert.is(histogramKey(-70.3), -70.5);
  assert.is(histogramKey(-70.2), -70);
  assert.is(histogramKey(-70.25), -70);
  assert.is(histogramKey(-70.75), -70.5);
});

test('out-of-range and extreme readings are clamped, never overflow', () => {
  assert.is(histogramKey(Number.MAX_VALUE), HISTOGRAM.limit);
  assert.is(histogramKey(-Number.MAX_VALUE), -HISTOGRAM.limit);
  assert.is(histogramKey(-1e6), -HISTOGRAM.limit);
  assert.is(histogramKey(5e-324), 0);
});

test('a hostile device\'s 5,000 distinct readings in a day: a bounded histogram that still counts each', () => {
  tally.attacksTried++;
  const base = { IMEINumber: '357440000000001', Ongoing_fault: 0 } as DeviceData;
  let row: HealthDay | null = null;
  for (let i = 0; i < 5000; i++) {
    const date = new Date(Date.UTC(2026, 10, 20) + i * 10_000).toISOString();
    row = foldCheckIn(row, { ...base, date, rssi: (i % 2 ? -1 : 1) * (i * 1.37 + 0.001) } as DeviceData);
  }
  assert.ok(row!.rssi.length <= HISTOGRAM_MAX_VALUES, `${row!.rssi.length} pairs`);
  assert.is(row!.rssi.reduce((n, [, k]) => n + k, 0), 5000);
  assert.ok(histogramMedian(row!.rssi) !== null);
  tally.attacksRefused++;
});

test.run();
