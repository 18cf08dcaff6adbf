// The IEC 104 point map rows (iec104/data/point-map-rows.ts): addresses by the station's own rules, per bank.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BANK_SLOTS } from '../../../points/banks.js';
import { iec104PointMapBanks, iec104PointMapCsv, iec104PointMapRows } from '../../../iec104/data/point-map-rows.js';
import { floatIoa, singleIoa } from '../../../iec104/data/point-map.js';
import { GROUP_KINDS } from '../../../iec104/data/asdus.js';

const slots = {
  devices: [{ imei: '861000000000001', slot: 2, name: '=Pole, "A"' }, { imei: '861000000000002', slot: BANK_SLOTS + 1, name: null }],
  lines: [{ powerLineId: 'F1', name: 'Feeder 1', slot: 3 }],
  maxSlot: BANK_SLOTS + 1,
};

test('a heartbeat per bank; a device slot\'s 8 single points and 8 floats; a power line\'s 4 and 6; bank 1 at common address + 1', () => {
  const rows = iec104PointMapRows(slots, { commonAddress: 10, analogOnly: false });
  assert.equal(rows.filter((r) => r.ioa === 100000).map((r) => r.commonAddress), [10, 11]);
  const of = (slot: number) => rows.filter((r) => r.slot === slot);
  assert.equal(of(2).map((r) => r.ioa), [...Array.from({ length: 8 }, (_, k) => singleIoa(2, k)), ...Array.from({ length: 8 }, (_, k) => floatIoa(2, k))]);
  assert.equal(of(3).length, 10);
  assert.ok(of(3).every((r) => r.deviceName === 'power line Feeder 1 (F1)' && r.point.endsWith(' on power line Feeder 1 (F1)')));
  assert.equal(of(BANK_SLOTS + 1).map((r) => [r.bank, r.commonAddress, r.ioa]).slice(0, 1), [[1, 11, singleIoa(1, 0)]]);
  assert.equal(iec104PointMapBanks(slots.maxSlot, 10), [{ bank: 0, commonAddress: 10, firstSlot: 0, lastSlot: BANK_SLOTS - 1 }, { bank: 1, commonAddress: 11, firstSlot: BANK_SLOTS, lastSlot: BANK_SLOTS + 1 }]);
});

test('the group a row names is the group whose interrogation answers it (data/asdus.ts GROUP_KINDS)', () => {
  const rows = iec104PointMapRows(slots, { commonAddress: 1, analogOnly: false });
  for (const r of rows) assert.is(GROUP_KINDS[r.group], r.kind, `${r.ioa}`);
  assert.equal(GROUP_KINDS, { 1: 'binary', 2: 'analog' });
});

test('analog only: no single points', () => {
  const rows = iec104PointMapRows(slots, { commonAddress: 1, analogOnly: true });
  assert.ok(rows.length > 0 && rows.every((r) => r.kind === 'analog' && r.interrogationType === 'M_ME_NC_1'));
});

test('CSV: a header, one line per row, a formula-like name neutralised and quoted', () => {
  const rows = iec104PointMapRows(slots, { commonAddress: 1, analogOnly: false });
  const lines = iec104PointMapCsv(rows).trimEnd().split('\r\n');
  assert.is(lines[0], 'commonAddress,bank,ioa,kind,interrogationType,spontaneousType,group,slot,imei,deviceName,point,deadband,unit');
  assert.is(lines.length, rows.length + 1);
  assert.ok(lines.some((l) => l.includes(`"'=Pole, ""A"""`)));
});

test.run();
