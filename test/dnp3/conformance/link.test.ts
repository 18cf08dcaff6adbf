// The link functions a TCP outstation answers, driven through the whole stack (exact frames; every frame the
// harness receives is also checked with the independent bit-wise CRC).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeFrame } from '../../../dnp3/link/frame.js';
import { toHex } from '../helpers/hex.js';
import { Pipe } from './harness.js';

const noUnsol = { outstation: { unsolicited: false } };

test('REQUEST_LINK_STATUS -> LINK_STATUS', () => {
  assert.equal(new Pipe().link('05 64 05 C9 0A 00 01 00 FE DA'), ['05 64 05 0B 01 00 0A 00 6D ED']);
});

test('RESET_LINK_STATES -> ACK; CONFIRMED_USER_DATA (FCB 1) -> ACK, then the response', () => {
  const p = new Pipe(noUnsol);
  assert.equal(p.link('05 64 05 C0 0A 00 01 00 B1 AC'), ['05 64 05 00 01 00 0A 00 2E DD']);
  // CONFIRMED_USER_DATA, FCB=1 FCV=1 (0xF3), transport C0, DELAY_MEASURE (C0 17)
  const confirmed = toHex(encodeFrame({ dir: true, prm: true, fcb: true, fcvDfc: true, func: 3, dest: 10, src: 1, data: Uint8Array.of(0xc0, 0xc0, 0x17) }));
  assert.is(confirmed.slice(0, 23), '05 64 08 F3 0A 00 01 00');
  const out = p.link(confirmed);
  assert.is(out[0], '05 64 05 00 01 00 0A 00 2E DD');
  assert.is(out.length, 2);
});

test('a read from another master address gets silence', () => {
  const fromMaster2 = encodeFrame({ dir: true, prm: true, fcb: false, fcvDfc: false, func: 4, dest: 10, src: 2, data: Uint8Array.of(0xc0, 0xc0, 0x01, 0x3c, 0x01, 0x06) });
  assert.equal(new Pipe(noUnsol).link(toHex(fromMaster2)), []);
});

test('class 0 read of an empty outstation: null response frame (header as reference section 1)', () => {
  const p = new Pipe(noUnsol);
  // Reference: "05 64 0A 44 01 00 0A 00 6E 25 C0 C0 81 80 00 B3 F3" for IIN 80 00; ours also has NEED_TIME (90 00).
  assert.equal(p.link('05 64 0B C4 0A 00 01 00 AC D1 C0 C0 01 3C 01 06 FF 50'), ['05 64 0A 44 01 00 0A 00 6E 25 C0 C0 81 90 00 9B 2C']);
});

test.run();
