import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { devicePoints, pointMapCsv, pointMapRows, pointCounts } from '../../../dnp3/data/point-map.js';
import type { DeviceSnapshot } from '../../../dnp3/data/point-map.js';
import { heartbeatValue } from '../../../dnp3/data/apply.js';

const T = Date.parse('2026-11-20T14:05:00Z');
const d = (over: Partial<DeviceSnapshot>): DeviceSnapshot => ({
  imei: '861', slot: 2, name: 'Pole', date: T, actualOngoingFault: 0, batteryOrLine: 1, averageCurrent1m: 1, prefaultCurrent: 2,
  faultCurrent: 3, faultTime: T - 1000, peakCurrent24h: 4, averageCurrent1h: 5, batteryMcu: 6, temperature: 7, ...over,
});
const bits = (s: DeviceSnapshot, now = T) => devicePoints(s, now, 26).filter((p) => p.type === 'binary').map((p) => p.value.value);

// SPEC-DECISIONS: k = fault active, permanent, temporary, over current, current reset, low battery, comm lost, line powered.
const TABLE: [number, number[]][] = [
  [0, [0, 0, 0, 0, 0, 0, 0, 0]],
  [4, [1, 1, 0, 0, 0, 0, 0, 0]],
  [5, [1, 1, 0, 0, 0, 0, 0, 0]],
  [2, [1, 0, 1, 0, 0, 0, 0, 0]],
  [11, [1, 0, 1, 0, 0, 0, 0, 0]],
  [3, [1, 0, 0, 1, 0, 0, 0, 0]],
  [6, [1, 0, 0, 1, 0, 0, 0, 0]],
  [10, [1, 0, 0, 0, 1, 0, 0, 0]],
  [402, [1, 0, 0, 0, 0, 1, 0, 0]],
  [400, [1, 0, 0, 0, 0, 0, 1, 0]],
  [401, [1, 0, 0, 0, 0, 0, 1, 0]],
];
for (const [aof, expected] of TABLE) {
  test(`binary points for ActualOngoingFault ${aof}`, () => assert.equal(bits(d({ actualOngoingFault: aof })), expected));
}

test('line powered when BatteryOrLine = 0; comm lost after OFFLINE_AFTER_HOURS without a check-in', () => {
  assert.is(bits(d({ batteryOrLine: 0 }))[7], 1);
  assert.is(bits(d({}), T + 27 * 3_600_000)[6], 1);
});

test('indices 8s+k and 1+8s+k, device timestamps, fault current at its event time', () => {
  const pts = devicePoints(d({}), T, 26);
  assert.equal(pts.filter((p) => p.type === 'binary').map((p) => p.index), [16, 17, 18, 19, 20, 21, 22, 23]);
  const analog = pts.filter((p) => p.type === 'analog');
  assert.equal(analog.map((p) => p.index), [17, 18, 19, 20, 21, 22, 23, 24]);
  assert.equal(analog.map((p) => p.value.value), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.equal(analog.map((p) => p.value.time), [T, T, T, T - 1000, T, T, T, T]);
  assert.equal(devicePoints(d({ date: null }), T, 26), []); // never checked in: points keep RESTART
});

test('analog-only mode: same analogs, no binaries', () => {
  assert.ok(devicePoints(d({}), T, 26, true).every((p) => p.type === 'analog'));
  assert.equal(pointCounts(2, true), { binary: 0, analog: 25 });
});

test('point map rows and CSV (quoted, formula-safe)', () => {
  const rows = pointMapRows([{ imei: '861', slot: 0, name: '=HYPERLINK("x")' }]);
  assert.is(rows.length, 1 + 8 + 8);
  assert.equal(rows[0]!.type, 'binary');
  const csv = pointMapCsv(rows);
  assert.ok(csv.startsWith('type,index,slot,imei,deviceName,point,eventClass,deadband,unit,staticVariation,eventVariation\r\n'));
  assert.ok(csv.includes(`"'=HYPERLINK(""x"")"`));
  assert.ok(csv.includes('analog,0,,,,"heartbeat (0..100, +1 per second)",0,,,g30v5,\r\n'));
});

test('heartbeat counts 0..100 and wraps, one step a second', () => {
  assert.equal([0, 999, 1000, 100_000, 101_000].map((ms) => heartbeatValue(T + ms, T)), [0, 0, 1, 100, 0]);
});

test.run();
