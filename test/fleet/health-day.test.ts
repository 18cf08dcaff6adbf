// The fleet health day's pure rules (fleet/health-day.ts): folding check-ins in any order and any batching gives
// one row; the RSSI median is exact; the slope is per day. No servers.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { foldCheckIn, histogramMedian, mergeDays, mergeHistograms, slopePerDay, type HealthDay } from '../../fleet/health-day.js';
import { healthUpsertSql } from '../../fleet/health-sql.js';
import { expectedPerDay } from '../../domain/checkin-clock.js';
import type { DeviceData } from '../../domain/checkin.js';

const checkIn = (date: string, over: Partial<DeviceData> = {}): DeviceData => ({
  IMEINumber: '357440000000001', model: 'FCI-3000', version: '4.2.1', date, rssi: -70, current_status: 1, master: 0, statusPacket: null,
  eventPacket: null, LEDDuration: null, LEDTimer: null, BatteryMCU: 3.6, BatteryLED: 3.5, State: 0, FaultType: 0, BatteryOrLine: 0,
  FastMode: null, Calibrated: null, AverageCurrent1m: null, PrefaultCurrent: null, AverageCurrent1h: null, PeakCurrent24h: null,
  Tempfault_Reset_Hours: '2', Permfault_Reset_Hours: 8, SOTF: null, Brightness: null, Current_Reset: 'Auto', Block_Reset: 0,
  Ongoing_fault: 0, channel: null, gps_long: null, gps_lat: null, Program: null, ConnectTime: 10, Temperature: 12, ...over,
});

const day = [
  checkIn('2026-11-20T00:05:00.000Z', { rssi: -80, BatteryMCU: 3.55, Temperature: -3, ConnectTime: 12 }),
  checkIn('2026-11-20T06:05:00.000Z', { rssi: -70, version: '4.3.0', ConnectTime: null }),
  checkIn('2026-11-20T12:05:00.000Z', { rssi: null, BatteryMCU: null, Temperature: 21.5 }),
  checkIn('2026-11-20T18:05:00.000Z', { rssi: -70, Tempfault_Reset_Hours: '4', version: '4.3.0', BatteryMCU: 3.58, ConnectTime: 7 }),
];
const fold = (list: readonly DeviceData[]) => list.reduce<HealthDay | null>((row, d) => foldCheckIn(row, d), null)!;

test('one check-in, then the day: counts, extremes, totals, and the latest check-in\'s reported values', () => {
  const row = fold(day);
  assert.equal(row.values, {
    received: 4, first_at: '2026-11-20T00:05:00.000Z', last_at: '2026-11-20T18:05:00.000Z', rssi_min: -80, rssi_max: -70,
    battery_mcu_min: 3.55, battery_mcu_max: 3.6, battery_mcu_last: 3.58, battery_led_min: 3.5, battery_led_max: 3.5, battery_led_last: 3.5,
    battery_or_line: 0, connect_time_sum: 29, connect_time_n: 3, version: '4.3.0', temperature_min: -3, temperature_max: 21.5,
    tempfault_reset_hours: '4', permfault_reset_hours: 8, current_reset: 'Auto', block_reset: 0,
  });
  assert.equal(row.rssi, [[-80, 1], [-70, 2]]);
  assert.is(row.day, '2026-11-20');
});

test('any order and any split into batches folds to the same row (what makes replay and late arrivals safe)', () => {
  const want = fold(day);
  const orders = [[3, 2, 1, 0], [2, 0, 3, 1], [1, 3, 0, 2]];
  for (const o of orders) assert.equal(fold(o.map((i) => day[i]!)), want, `order ${o}`);
  // Two batches folded apart, then merged as persist's upsert merges a batch into the stored row.
  assert.equal(mergeDays(fold([day[3]!, day[0]!]), fold([day[1]!, day[2]!])), want);
  assert.equal(mergeDays(fold([day[1]!, day[2]!]), fold([day[3]!, day[0]!])), want);
});

test('the latest check-in leaving a field out makes the day\'s latest value null (documented: the latest check-in\'s values)', () => {
  const row = fold([day[0]!, checkIn('2026-11-20T23:00:00.000Z', { version: null, BatteryMCU: null })]);
  assert.is(row.values.version, null);
  assert.is(row.values.battery_mcu_last, null);
  assert.is(row.values.battery_mcu_min, 3.55, 'the extremes keep what was reported');
});

test('rows of two devices or two days are never merged', () => {
  assert.throws(() => mergeDays(fold([day[0]!]), fold([checkIn('2026-11-21T00:00:00.000Z')])), /cannot merge/);
});

test('the median of a histogram is the exact median of its readings', () => {
  assert.is(histogramMedian([]), null);
  assert.is(histogramMedian([[-70, 1]]), -70);
  assert.is(histogramMedian([[-80, 1], [-70, 2]]), -70);
  assert.is(histogramMedian([[-80, 2], [-70, 2]]), -75);
  assert.is(histogramMedian([[-90, 1], [-80.5, 1], [-60, 3]]), -60);
  assert.equal(mergeHistograms([[-80, 1], [-70, 2]], [[-75, 1], [-70, 1]]), [[-80, 1], [-75, 1], [-70, 3]]);
});

test('the slope of a daily value is per day, and unknown with fewer than two days', () => {
  assert.is(slopePerDay([{ day: '2026-11-01', value: -70 }]), null);
  assert.is(slopePerDay([{ day: '2026-11-01', value: -70 }, { day: '2026-11-11', value: -80 }]), -1);
  assert.is(slopePerDay([{ day: '2026-11-01', value: -70 }, { day: '2026-11-02', value: -70 }, { day: '2026-11-03', value: -70 }]), 0);
});

test('expected check-ins per day come from the learned interval, floored (domain/checkin-clock.ts)', () => {
  assert.is(expectedPerDay(null, 300), null);
  assert.is(expectedPerDay(900, 300), 96);
  assert.is(expectedPerDay(60, 300), 288, 'a burst of quick check-ins does not raise what is expected past the floor');
});

test('the upsert folds each column the way the pure rule does, and reads only what it is given', () => {
  const sql = healthUpsertSql('select 1');
  assert.match(sql, 'with stored as (select 1)');
  assert.match(sql, '"received" = device_health_days."received" + excluded."received"');
  assert.match(sql, '"battery_mcu_min" = least(device_health_days."battery_mcu_min", excluded."battery_mcu_min")');
  assert.match(sql, '"version" = case when excluded.last_at > device_health_days.last_at then excluded."version" else device_health_days."version" end');
  assert.match(sql, 'fl_histogram_merge');
});

test.run();
