import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Cot, decodeAsdu, encodeAsdu, objectsPerAsdu, Quality, readCp56, TYPE_TABLE, TypeId, writeCp56, type InfoObject } from '../../iec104/asdu/index.js';
import { MAX_ASDU_LENGTH } from '../../iec104/apci/apci.js';
import type { Iec104Error } from '../../iec104/errors.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const T = Date.UTC(2026, 10, 25, 14, 5, 7, 123); // a Wednesday

test('CP56Time2a: ms of minute, minute, hour, day with weekday, month, year; round trip', () => {
  const b = new Uint8Array(7);
  writeCp56(new DataView(b.buffer), 0, T);
  assert.is(hex(b), 'd31b050e790b1a'); // 7123 ms, 05 min, 14 h, day 25 | Wednesday(3)<<5, month 11, year 26
  assert.equal(readCp56(new DataView(b.buffer), 0), { ms: T, invalid: false });
  b[5] = 13;
  assert.throws(() => readCp56(new DataView(b.buffer), 0), /not a time/);
});

test('M_SP_TB_1 spontaneous with quality and device time: the header and element octets', () => {
  const b = encodeAsdu({ typeId: TypeId.M_SP_TB_1, cause: Cot.SPONTANEOUS, negative: false, test: false, originator: 0, commonAddress: 0x0102,
    objects: [{ ioa: 0x010203, value: 1, quality: Quality.NT, time: T }] });
  assert.is(hex(b), '1e0103000201' + '030201' + '41' + 'd31b050e790b1a');
});

test('every type of the table round-trips through its field list', () => {
  const sample: InfoObject = { ioa: 70_000, value: 1, quality: Quality.IV | Quality.BL, time: T, timeInvalid: false, qualifier: 20, tsc: 0x55aa };
  for (const t of TYPE_TABLE) {
    const a = { typeId: t.id, cause: Cot.ACTIVATION, negative: true, test: true, originator: 3, commonAddress: 65534, objects: [sample] };
    const back = decodeAsdu(encodeAsdu(a));
    assert.is(back.typeId, t.id);
    assert.equal({ ...back, objects: [] }, { ...a, objects: [] });
    const o = back.objects[0]!;
    assert.is(o.ioa, 70_000);
    if (t.fields.includes('cp56')) assert.is(o.time, T, t.name);
    if (t.fields.includes('siq') || t.fields.includes('r32')) assert.is(o.value, 1, t.name);
    if (t.fields.includes('qds')) assert.is(o.quality, Quality.IV | Quality.BL, t.name);
    if (t.fields.includes('qoi') || t.fields.includes('coi')) assert.is(o.qualifier, 20, t.name);
    if (t.fields.includes('tsc')) assert.is(o.tsc, 0x55aa, t.name);
  }
});

test('M_ME_NC_1 carries OV; short floats are IEEE 754 little-endian', () => {
  const b = encodeAsdu({ typeId: TypeId.M_ME_NC_1, cause: Cot.INTERROGATED_BY_STATION, negative: false, test: false, originator: 0, commonAddress: 1,
    objects: [{ ioa: 1, value: 1.5, quality: Quality.OV }] });
  assert.is(hex(b.subarray(9)), '0000c03f01');
});

test('SQ = 1 objects get consecutive IOAs; lengths and unknown types are refused', () => {
  const sq = new Uint8Array([1, 0x82, 20, 0, 1, 0, 10, 0, 0, 1, 0]);
  assert.equal(decodeAsdu(sq).objects.map((o) => [o.ioa, o.value]), [[10, 1], [11, 0]]);
  const code = (b: number[]) => { try { decodeAsdu(new Uint8Array(b)); return 'none'; } catch (e) { return (e as Iec104Error).code; } };
  assert.is(code([45, 1, 6, 0, 1, 0, 1, 0, 0, 1]), 'UNKNOWN_TYPE'); // C_SC_NA_1: no outputs here
  assert.is(code([100, 1, 6, 0, 1, 0, 0, 0, 0]), 'BAD_LENGTH');
  assert.is(code([100, 0, 6, 0, 1, 0]), 'BAD_VSQ');
  assert.is(code([100, 1]), 'TRUNCATED');
});

test('objectsPerAsdu fills an ASDU without passing 249 octets', () => {
  for (const t of TYPE_TABLE) {
    const n = objectsPerAsdu(t.id);
    const objs = Array.from({ length: n }, (_, i) => ({ ioa: i, time: T }));
    assert.ok(encodeAsdu({ typeId: t.id, cause: 20, negative: false, test: false, originator: 0, commonAddress: 1, objects: objs }).length <= MAX_ASDU_LENGTH);
    assert.throws(() => encodeAsdu({ typeId: t.id, cause: 20, negative: false, test: false, originator: 0, commonAddress: 1, objects: [...objs, ...objs].slice(0, n + 1) }));
  }
});

test.run();
