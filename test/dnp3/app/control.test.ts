// The application control octet (dnp3/app/header.ts): its named fields, and sequence numbers that wrap at 16.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AppControlField, encodeControl, nextSeq, parseControl, wantsConfirm } from '../../../dnp3/app/header.js';

test('each named field is its own bit of the octet (IEEE 1815 4.2.2.4), SEQ the low four', () => {
  assert.equal(AppControlField, { FIR: 0x80, FIN: 0x40, CON: 0x20, UNS: 0x10, SEQ: 0x0f });
  assert.equal(parseControl(0x80), { fir: true, fin: false, con: false, uns: false, seq: 0 });
  assert.equal(parseControl(0x40), { fir: false, fin: true, con: false, uns: false, seq: 0 });
  assert.equal(parseControl(0x20), { fir: false, fin: false, con: true, uns: false, seq: 0 });
  assert.equal(parseControl(0x10), { fir: false, fin: false, con: false, uns: true, seq: 0 });
  assert.equal(parseControl(0x0b), { fir: false, fin: false, con: false, uns: false, seq: 11 });
  // What opendnp3 sends and Wireshark shows: a first and final unsolicited response asking for confirmation, SEQ 5.
  assert.is(encodeControl({ fir: true, fin: true, con: true, uns: true, seq: 5 }), 0xf5);
  assert.is(encodeControl({ fir: true, fin: false, con: true, uns: false, seq: 17 }), 0xa1); // SEQ kept to its four bits
});

test('every octet parses and encodes back to itself', () => {
  for (let b = 0; b < 256; b++) assert.is(encodeControl(parseControl(b)), b, String(b));
});

test('sequence numbers count 0..15 and wrap', () => {
  assert.equal([nextSeq(0), nextSeq(14), nextSeq(15), nextSeq(15, 2), nextSeq(3, 16)], [1, 15, 0, 1, 3]);
});

test('a fragment wants confirmation when its CON bit is set', () => {
  assert.ok(wantsConfirm(Uint8Array.of(0xe0, 0x81, 0, 0)));
  assert.not.ok(wantsConfirm(Uint8Array.of(0xc0, 0x81, 0, 0)));
  assert.not.ok(wantsConfirm(Uint8Array.of(0xdf, 0x81, 0, 0))); // every other bit set
});

test.run();
