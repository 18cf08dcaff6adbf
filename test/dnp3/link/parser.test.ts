import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LinkParser } from '../../../dnp3/link/parser.js';
import { encodeFrame } from '../../../dnp3/link/frame.js';
import { hex, toHex } from '../helpers/hex.js';

const RESET = '05 64 05 C0 0A 00 01 00 B1 AC';
const READ = '05 64 0B C4 0A 00 01 00 AC D1 C0 C0 01 3C 01 06 FF 50';

test('several frames in one read, one frame across reads, junk between', () => {
  const p = new LinkParser();
  const stream = hex(`${RESET} 00 FF 05 ${READ}`);
  const frames = [...p.push(stream.subarray(0, 7)), ...p.push(stream.subarray(7, 20)), ...p.push(stream.subarray(20))];
  assert.equal(frames.map((f) => toHex(encodeFrame(f))), [RESET, READ]);
  assert.is(p.stats.frames, 2);
  assert.is(p.stats.junkOctets, 3);
});

test('bad header CRC: dropped, counted, the following frame still found', () => {
  const p = new LinkParser();
  const frames = p.push(hex(`05 64 05 C0 0A 00 01 00 B1 AD ${READ}`));
  assert.is(frames.length, 1);
  assert.is(p.stats.headerCrc, 1);
});

test('bad body CRC: dropped and counted', () => {
  const p = new LinkParser();
  assert.is(p.push(hex('05 64 0B C4 0A 00 01 00 AC D1 C0 C0 01 3C 01 06 FF 51')).length, 0);
  assert.is(p.stats.bodyCrc, 1);
});

test('a lone 0x05 at the end of a read is kept', () => {
  const p = new LinkParser();
  const b = hex(RESET);
  assert.is(p.push(b.subarray(0, 1)).length, 0);
  assert.is(p.push(b.subarray(1)).length, 1);
});

test.run();
