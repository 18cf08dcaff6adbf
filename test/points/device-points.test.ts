import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BANK_SLOTS, bankCount, lastLocalSlot } from '../../points/banks.js';
import { DEVICE_ANALOG_POINTS, DEVICE_BINARY_POINTS, POINTS_PER_SLOT, deviceSamples, type DeviceSnapshot } from '../../points/device-points.js';
import { LINE_ANALOG, LINE_BINARY, powerLineSamples } from '../../points/power-lines.js';

const CLOCK = { floorS: 300, ceilingS: 26 * 3600 };
const T = Date.parse('2026-11-20T14:05:00Z');
const d: DeviceSnapshot = {
  imei: '861', slot: 8003, name: 'Pole', date: T, actualOngoingFault: 4, batteryOrLine: 1, averageCurrent1m: null, prefaultCurrent: 2,
  faultCurrent: 3, faultTime: T - 1000, peakCurrent24h: 4, averageCurrent1h: 5, batteryMcu: 6, temperature: 7,
};

test('every point of a slot has a distinct k below POINTS_PER_SLOT', () => {
  for (const table of [DEVICE_BINARY_POINTS, DEVICE_ANALOG_POINTS, LINE_BINARY, LINE_ANALOG]) {
    const ks = table.map((p) => p.k);
    assert.equal(new Set(ks).size, ks.length);
    assert.ok(ks.every((k) => k >= 0 && k < POINTS_PER_SLOT));
  }
});

test('samples keep the global slot, the device time, and say what was not reported and what is offline', () => {
  const s = deviceSamples(d, T, CLOCK);
  assert.is(s.length, 16);
  assert.ok(s.every((x) => x.slot === 8003 && !x.offline));
  assert.is(s.find((x) => x.kind === 'analog' && x.k === 1)!.reported, false);
  assert.is(s.find((x) => x.kind === 'analog' && x.k === 3)!.time, T - 1000);
  assert.is(s.find((x) => x.kind === 'binary' && x.k === 1)!.value, 1); // code 4: permanent
  assert.ok(deviceSamples(d, T + 27 * 3_600_000, CLOCK).every((x) => x.offline));
  assert.equal(deviceSamples({ ...d, date: null }, T, CLOCK), []);
});

test('power line samples carry the incident time, else now', () => {
  const l = { powerLineId: 'p', name: null, slot: 5, open: null, openCount: 0, slotOf: new Map<string, number>() };
  assert.ok(powerLineSamples(l, T).every((x) => x.time === T));
  assert.is(powerLineSamples(l, T, true).length, LINE_ANALOG.length);
});

test('banks: bank 0 always, last bank holds up to the highest slot', () => {
  assert.is(bankCount(-1), 1);
  assert.is(bankCount(BANK_SLOTS), 2);
  assert.is(lastLocalSlot(0, BANK_SLOTS + 5), BANK_SLOTS - 1);
  assert.is(lastLocalSlot(1, BANK_SLOTS + 5), 5);
  assert.is(lastLocalSlot(0, -1), -1);
});

test.run();
