import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LinkSecondary } from '../../../dnp3/link/secondary.js';
import { encodeFrame } from '../../../dnp3/link/frame.js';
import type { LinkFrame } from '../../../dnp3/link/frame.js';
import { toHex } from '../helpers/hex.js';

const cfg = { address: 10, masterAddress: 1 };
const primary = (func: number, extra: Partial<LinkFrame> = {}): LinkFrame => ({
  dir: true, prm: true, fcb: false, fcvDfc: func === 2 || func === 3, func, dest: 10, src: 1,
  data: func === 3 || func === 4 ? Uint8Array.of(0xc0, 0xc0, 0x01) : new Uint8Array(0), ...extra,
});
const reply = (l: LinkSecondary, f: LinkFrame) => {
  const r = l.handle(f);
  return r.reply ? toHex(encodeFrame(r.reply)) : undefined;
};

test('REQUEST_LINK_STATUS -> LINK_STATUS, reset or not', () => {
  assert.is(reply(new LinkSecondary(cfg), primary(9)), '05 64 05 0B 01 00 0A 00 6D ED');
});

test('RESET_LINK_STATES -> ACK', () => {
  assert.is(reply(new LinkSecondary(cfg), primary(0)), '05 64 05 00 01 00 0A 00 2E DD');
});

test('UNCONFIRMED_USER_DATA: payload, no reply', () => {
  const r = new LinkSecondary(cfg).handle(primary(4));
  assert.is(r.reply, undefined);
  assert.equal(Array.from(r.payload!), [0xc0, 0xc0, 0x01]);
});

test('CONFIRMED_USER_DATA: ignored before reset; after reset FCB toggles; a repeat is ACKed, not delivered', () => {
  const l = new LinkSecondary(cfg);
  assert.is(l.handle(primary(3, { fcb: true })).discarded, 'notReset');
  l.handle(primary(0));
  const first = l.handle(primary(3, { fcb: true }));
  assert.ok(first.payload && first.reply);
  const repeat = l.handle(primary(3, { fcb: true }));
  assert.is(repeat.payload, undefined);
  assert.is(repeat.discarded, 'repeatedFcb');
  assert.ok(repeat.reply);
  assert.ok(l.handle(primary(3, { fcb: false })).payload);
});

test('TEST_LINK_STATES: ACK when reset and FCB matches', () => {
  const l = new LinkSecondary(cfg);
  assert.is(l.handle(primary(2, { fcb: true })).discarded, 'notReset');
  l.handle(primary(0));
  assert.is(reply(l, primary(2, { fcb: true })), '05 64 05 00 01 00 0A 00 2E DD');
});

test('filters: direction, destination, source, secondary frames', () => {
  const l = new LinkSecondary(cfg);
  assert.is(l.handle(primary(9, { dir: false })).discarded, 'fromOutstation');
  assert.is(l.handle(primary(9, { dest: 11 })).discarded, 'wrongDestination');
  assert.is(l.handle(primary(9, { src: 2 })).discarded, 'wrongSource');
  assert.is(l.handle({ ...primary(9), prm: false, func: 11 }).discarded, 'secondaryFrame');
  assert.is(l.discards.get('wrongSource'), 1);
});

test('broadcast: user data delivered without reply; other functions dropped', () => {
  const l = new LinkSecondary(cfg);
  const r = l.handle(primary(4, { dest: 0xffff }));
  assert.is(r.broadcast, 'confirmOptional');
  assert.is(r.reply, undefined);
  assert.is(l.handle(primary(9, { dest: 0xfffd })).discarded, 'broadcastNotUserData');
});

test.run();
