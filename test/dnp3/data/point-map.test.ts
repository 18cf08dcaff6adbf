import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  BANK_SLOTS, bankAddress, bankCount, bankOf, devicePoints, localSlot, pointMapBanks, pointMapCsv, pointMapRows, pointCounts,
} from '../../../dnp3/data/point-map.js';
import type { DeviceSnapshot } from '../../../dnp3/data/point-map.js';
import { applyHeartbeat, applySnapshot, heartbeatValue, sizeBanks } from '../../../dnp3/data/apply.js';
import type { Outstation } from '../../../dnp3/outstation/outstation.js';
/** OFFLINE_AFTER_HOURS 26 as the communication-lost ceiling, the default floor (domain/checkin-clock.ts). */
const CLOCK_26H = { floorS: 300, ceilingS: 26 * 3600 };

const T = Date.parse('2026-11-20T14:05:00Z');
const d = (over: Partial<DeviceSnapshot>): DeviceSnapshot => ({
  imei: '861', slot: 2, name: 'Pole', date: T, actualOngoingFault: 0, batteryOrLine: 1, averageCurrent1m: 1, prefaultCurrent: 2,
  faultCurrent: 3, faultTime: T - 1000, peakCurrent24h: 4, averageCurrent1h: 5, batteryMcu: 6, temperature: 7, ...over,
});
const bits = (s: DeviceSnapshot, now = T) => devicePoints(s, now, CLOCK_26H).filter((p) => p.type === 'binary').map((p) => p.value.value);

// docs/decisions.md: k = fault active, permanent, temporary, over current, current reset, low battery, comm lost, line powered.
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
  const pts = devicePoints(d({}), T, CLOCK_26H);
  assert.equal(pts.filter((p) => p.type === 'binary').map((p) => p.index), [16, 17, 18, 19, 20, 21, 22, 23]);
  const analog = pts.filter((p) => p.type === 'analog');
  assert.equal(analog.map((p) => p.index), [17, 18, 19, 20, 21, 22, 23, 24]);
  assert.equal(analog.map((p) => p.value.value), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.equal(analog.map((p) => p.value.time), [T, T, T, T - 1000, T, T, T, T]);
  assert.equal(devicePoints(d({ date: null }), T, CLOCK_26H), []); // never checked in: points keep RESTART
});

test('analog-only mode: same analogs, no binaries', () => {
  assert.ok(devicePoints(d({}), T, CLOCK_26H, true).every((p) => p.type === 'analog'));
  assert.equal(pointCounts(2, true), { binary: 0, analog: 25 });
});

test('point map rows and CSV (quoted, formula-safe), every row with its bank and link address', () => {
  const rows = pointMapRows([{ imei: '861', slot: 0, name: '=HYPERLINK("x")' }]);
  assert.is(rows.length, 1 + 8 + 8);
  assert.equal(rows[0]!.type, 'binary');
  assert.ok(rows.every((r) => r.bank === 0 && r.outstationAddress === 10));
  const csv = pointMapCsv(rows);
  assert.ok(csv.startsWith('outstationAddress,bank,type,index,slot,imei,deviceName,point,eventClass,deadband,unit,staticVariation,eventVariation\r\n'));
  assert.ok(csv.includes(`"'=HYPERLINK(""x"")"`));
  assert.ok(csv.includes('10,0,analog,0,,,,"heartbeat (0..100, +1 per second)",0,,,g30v5,\r\n'));
  assert.ok(csv.includes('10,0,binary,7,0,861,"\'=HYPERLINK(""x"")",line powered,1,,,g1v2,g2v2\r\n'));
});

test('banks: 8,000 slots each, local slot numbering, addresses from the outstation address up', () => {
  assert.is(BANK_SLOTS, 8000);
  assert.equal([0, 7999, 8000, 8001, 15_999, 16_000, 24_123].map(bankOf), [0, 0, 1, 1, 1, 2, 3]);
  assert.equal([0, 7999, 8000, 8001, 15_999, 16_000, 24_123].map(localSlot), [0, 7999, 0, 1, 7999, 0, 123]);
  assert.equal([-1, 0, 7999, 8000, 9999, 16_000].map(bankCount), [1, 1, 1, 2, 2, 3]);
  assert.equal([bankAddress(10, 0), bankAddress(10, 1), bankAddress(100, 2)], [10, 11, 102]);
  assert.throws(() => bankAddress(0xffef, 1), /past 65519/);
  // The largest local index stays within opendnp3's 16 bits.
  assert.equal(pointCounts(BANK_SLOTS - 1), { binary: 64_000, analog: 64_001 });
  assert.ok(pointCounts(BANK_SLOTS - 1).analog - 1 <= 0xffff);
  assert.throws(() => pointCounts(BANK_SLOTS));
});

test('a device in bank 1 gets its local indexes: slot 8002 -> binary 16..23, analog 17..24', () => {
  const pts = devicePoints(d({ slot: 8002 }), T, CLOCK_26H);
  assert.equal(pts.filter((p) => p.type === 'binary').map((p) => p.index), [16, 17, 18, 19, 20, 21, 22, 23]);
  assert.equal(pts.filter((p) => p.type === 'analog').map((p) => p.index), [17, 18, 19, 20, 21, 22, 23, 24]);
});

test('point map over 10,000 devices: two banks, a heartbeat row per bank, addresses 10 and 11', () => {
  const devices = Array.from({ length: 10_000 }, (_, slot) => ({ imei: `35${String(slot).padStart(13, '0')}`, slot, name: null }));
  const rows = pointMapRows(devices, { outstationAddress: 10 });
  assert.is(rows.length, 2 + 16 * 10_000);
  const heartbeats = rows.filter((r) => r.slot === null);
  assert.equal(heartbeats.map((r) => [r.bank, r.outstationAddress, r.type, r.index]), [[0, 10, 'analog', 0], [1, 11, 'analog', 0]]);
  const last = rows.filter((r) => r.slot === 9999);
  assert.ok(last.every((r) => r.bank === 1 && r.outstationAddress === 11));
  assert.equal(last.filter((r) => r.type === 'binary').map((r) => r.index), [15_992, 15_993, 15_994, 15_995, 15_996, 15_997, 15_998, 15_999]);
  const first1 = rows.find((r) => r.slot === 8000 && r.type === 'analog')!;
  assert.equal([first1.index, first1.outstationAddress], [1, 11]);
  assert.ok(rows.every((r) => r.index <= 0xffff));
  // Sorted by bank, binary before analog, by index.
  const b1 = rows.findIndex((r) => r.bank === 1);
  assert.ok(rows.slice(0, b1).every((r) => r.bank === 0) && rows.slice(b1).every((r) => r.bank === 1));
  assert.equal(rows[b1]!.type, 'binary');
  assert.equal(pointMapBanks(9999, { outstationAddress: 10 }), [
    { bank: 0, outstationAddress: 10, firstSlot: 0, lastSlot: 7999, binaryPoints: 64_000, analogPoints: 64_001 },
    { bank: 1, outstationAddress: 11, firstSlot: 8000, lastSlot: 9999, binaryPoints: 16_000, analogPoints: 16_001 },
  ]);
  // The highest slot (maybe a deleted device's) decides the banks, as in the outstation.
  assert.is(pointMapRows([{ imei: '1', slot: 0, name: null }], { maxSlot: 8000 }).filter((r) => r.slot === null).length, 2);
  assert.equal(pointMapBanks(-1), [{ bank: 0, outstationAddress: 10, firstSlot: 0, lastSlot: -1, binaryPoints: 0, analogPoints: 1 }]);
});

test('sizeBanks grows the bank list; snapshots go to their bank; the heartbeat to every bank', () => {
  const banks: Outstation[] = [];
  assert.is(sizeBanks(banks, -1, false), 1);
  assert.equal([banks[0]!.db.count('binary'), banks[0]!.db.count('analog')], [0, 1]);
  assert.is(sizeBanks(banks, 8001, false), 1);
  assert.equal(banks.map((o) => [o.db.count('binary'), o.db.count('analog')]), [[64_000, 64_001], [16, 17]]);
  assert.is(sizeBanks(banks, 8001, false), 0);
  assert.equal(applySnapshot(banks, d({ slot: 8001, actualOngoingFault: 4 }), T, CLOCK_26H, false) > 0, true);
  assert.is(banks[1]!.db.get('binary', 9)!.value, 1); // local slot 1, k=1 permanent
  assert.is(banks[1]!.db.get('analog', 9)!.value, 4); // analog 1+8+0
  assert.is(banks[0]!.db.get('binary', 9)!.flags & 1, 0); // bank 0's slot 1 untouched
  assert.throws(() => applySnapshot(banks, d({ slot: 16_000 }), T, CLOCK_26H, false), /bank 2/);
  applyHeartbeat(banks, T + 5000, T);
  assert.equal(banks.map((o) => o.db.get('analog', 0)!.value), [5, 5]);
  // The new bank's heartbeat is class 0 like bank 0's: no events from it.
  const before = banks[1]!.events.size();
  applyHeartbeat(banks, T + 9000, T);
  assert.is(banks[1]!.events.size(), before);
});

test('heartbeat counts 0..100 and wraps, one step a second', () => {
  assert.equal([0, 999, 1000, 100_000, 101_000].map((ms) => heartbeatValue(T + ms, T)), [0, 0, 1, 100, 0]);
});

test.run();
