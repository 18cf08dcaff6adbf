import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { crc16Dnp } from '../../../dnp3/link/crc.js';
import { encodeFrame, parseFrame } from '../../../dnp3/link/frame.js';
import { Dnp3Error } from '../../../dnp3/errors.js';
import { hex, toHex } from '../helpers/hex.js';

test('CRC-16/DNP check value of "123456789" is 0xEA82', () => {
  assert.is(crc16Dnp(new TextEncoder().encode('123456789')), 0xea82);
});

// Known-good frames (opendnp3's TestCRC/TestLinkFrame among them); the CRC is IEEE 1815's link-layer CRC.
const VECTORS: [string, string][] = [
  ['reset link states 1 -> 1024', '05 64 05 C0 01 00 00 04 E9 21'],
  ['reset link states 1 -> 10', '05 64 05 C0 0A 00 01 00 B1 AC'],
  ['request link status 1 -> 10', '05 64 05 C9 0A 00 01 00 FE DA'],
  ['link status 10 -> 1', '05 64 05 0B 01 00 0A 00 6D ED'],
  ['ack 10 -> 1', '05 64 05 00 01 00 0A 00 2E DD'],
  ['class 0 read', '05 64 0B C4 0A 00 01 00 AC D1 C0 C0 01 3C 01 06 FF 50'],
  ['confirmed user data, integrity poll', '05 64 14 F3 01 00 00 04 0A 3B C0 C3 01 3C 02 06 3C 03 06 3C 04 06 3C 01 06 9A 12'],
  ['null response with DEVICE_RESTART', '05 64 0A 44 01 00 0A 00 6E 25 C0 C0 81 80 00 B3 F3'],
];

for (const [name, vector] of VECTORS) {
  test(`parse and re-encode: ${name}`, () => {
    const bytes = hex(vector);
    assert.is(toHex(encodeFrame(parseFrame(bytes))), toHex(bytes));
  });
}

test('fields of the confirmed-data vector', () => {
  const f = parseFrame(hex(VECTORS[6]![1]));
  assert.equal([f.dir, f.prm, f.fcb, f.fcvDfc, f.func, f.dest, f.src], [true, true, true, true, 3, 1, 1024]);
  assert.is(toHex(f.data), 'C0 C3 01 3C 02 06 3C 03 06 3C 04 06 3C 01 06');
});

test('a frame of 250 octets has 16 blocks and 292 octets', () => {
  const data = Uint8Array.from({ length: 250 }, (_, i) => i);
  const bytes = encodeFrame({ dir: false, prm: true, fcb: false, fcvDfc: false, func: 4, dest: 1, src: 10, data });
  assert.is(bytes.length, 292);
  assert.equal(parseFrame(bytes).data, data);
});

function code(fn: () => unknown): string {
  try { fn(); return 'none'; } catch (e) { return e instanceof Dnp3Error ? e.code : 'untyped'; }
}

test('typed refusals', () => {
  assert.is(code(() => parseFrame(hex('05 64 05 C0'))), 'LINK_TOO_SHORT');
  assert.is(code(() => parseFrame(hex('05 65 05 C0 01 00 00 04 E9 21'))), 'LINK_BAD_START');
  assert.is(code(() => parseFrame(hex('05 64 05 C0 01 00 00 04 E9 22'))), 'LINK_HEADER_CRC');
  assert.is(code(() => parseFrame(hex('05 64 0B C4 0A 00 01 00 AC D1 C0 C0 01 3C 01 06 FF 51'))), 'LINK_BODY_CRC');
  // REQUEST_LINK_STATUS with FCV set.
  const badFcv = encodeFrame({ dir: true, prm: true, fcb: false, fcvDfc: true, func: 9, dest: 10, src: 1, data: new Uint8Array(0) });
  assert.is(code(() => parseFrame(badFcv)), 'LINK_BAD_FCV');
  const badFunc = encodeFrame({ dir: true, prm: true, fcb: false, fcvDfc: false, func: 7, dest: 10, src: 1, data: new Uint8Array(0) });
  assert.is(code(() => parseFrame(badFunc)), 'LINK_BAD_FUNCTION');
  const dataOnReset = encodeFrame({ dir: true, prm: true, fcb: false, fcvDfc: false, func: 0, dest: 10, src: 1, data: new Uint8Array(1) });
  assert.is(code(() => parseFrame(dataOnReset)), 'LINK_UNEXPECTED_DATA');
  assert.is(code(() => encodeFrame({ dir: true, prm: true, fcb: false, fcvDfc: false, func: 4, dest: 10, src: 1, data: new Uint8Array(251) })), 'LINK_DATA_TOO_LONG');
});

test.run();
