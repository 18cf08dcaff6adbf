// The SCADA listener's handshake slots (integrations/handshake-slots.ts, docs/decisions.md#scada-listener-slots-sessions-and-claims):
// the kept slots hold for each organisation's master against strangers and against another tenant's known masters.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HandshakeSlots, type SlotLimits } from '../../integrations/handshake-slots.js';

const LIMITS: SlotLimits = { handshakes: 64, handshakesPerAddress: 8, knownMasterHandshakes: 16, knownPerAddress: 2, knownPerOwner: 4, knownForgetMs: 1000 };

/** Takes slots from `address` until one is refused; how many it got. */
function fill(slots: HandshakeSlots, address: string, most = 100): number {
  let n = 0;
  while (n < most && slots.take(address)) n++;
  return n;
}

test('strangers share 48 slots, 8 per address; a known master still gets one', () => {
  const slots = new HandshakeSlots(LIMITS);
  slots.remember('192.0.2.1', 'north');
  let strangers = 0;
  for (let a = 10; a < 20; a++) strangers += fill(slots, `198.51.100.${a}`);
  assert.is(strangers, 48);
  assert.ok(slots.take('192.0.2.1'), 'the known master gets a kept slot');
});

test("another tenant's known masters take no more than their share of the kept slots: 2 per address, 4 per organisation", () => {
  const slots = new HandshakeSlots(LIMITS);
  for (let a = 2; a <= 9; a++) slots.remember(`192.0.2.${a}`, 'east');
  slots.remember('192.0.2.1', 'north');
  let east = 0;
  for (let round = 0; round < 3; round++) for (let a = 2; a <= 9; a++) east += fill(slots, `192.0.2.${a}`);
  assert.is(east, 48 + 4, 'the strangers\' share and four kept slots');
  assert.is(fill(slots, '192.0.2.1'), 2, 'north\'s master gets its own two');
  slots.remember('192.0.2.200', 'south');
  assert.ok(slots.take('192.0.2.200'), 'and south\'s');
});

test('a released slot is free again, once', () => {
  const slots = new HandshakeSlots({ ...LIMITS, handshakes: 2, knownMasterHandshakes: 1 });
  const release = slots.take('198.51.100.1')!;
  assert.not.ok(slots.take('198.51.100.2'), 'the strangers\' one slot is taken');
  release();
  release();
  assert.ok(slots.take('198.51.100.2'));
  assert.not.ok(slots.take('198.51.100.3'), 'a second release gave nothing back');
});

test('a known address is forgotten after the bound without being seen, and when its organisation has no integration left', () => {
  let now = 0;
  const slots = new HandshakeSlots({ ...LIMITS, handshakes: 2, knownMasterHandshakes: 1 }, () => now);
  assert.ok(slots.take('198.51.100.1'), 'a stranger fills the strangers\' one slot');
  slots.remember('192.0.2.1', 'north');
  slots.remember('192.0.2.2', 'east');
  now = 1000;
  const kept = slots.take('192.0.2.1');
  assert.ok(kept, 'seen within the bound: known');
  kept!();
  now = 1001;
  assert.not.ok(slots.take('192.0.2.2'), 'not seen for longer than the bound: a stranger again');
  slots.remember('192.0.2.2', 'east');
  slots.remember('192.0.2.1', 'north');
  slots.keepOwners(new Set(['north']));
  assert.not.ok(slots.take('192.0.2.2'), 'east has no integration left: a stranger again');
  assert.ok(slots.take('192.0.2.1'), 'north is still known');
});

test("one organisation's many addresses do not push another's known master out of the memory", () => {
  const slots = new HandshakeSlots(LIMITS);
  slots.remember('192.0.2.1', 'north');
  // A tenant with a valid master certificate and an IPv6 /48 handshakes from 4,096 of its /64s.
  for (let i = 0; i < 4096; i++) slots.remember(`2001:db8:0:${i.toString(16)}::/64`, 'east');
  for (let a = 10; a < 20; a++) fill(slots, `198.51.100.${a}`);
  assert.ok(slots.take('192.0.2.1'), "north's master still gets a kept slot past the strangers");
  assert.ok(slots.take('2001:db8:0:fff::/64'), "east's most recent address is known");
  assert.not.ok(slots.take('2001:db8:0:0::/64'), "east's oldest went, its own, not north's");
});

test('every address stays under its cap in all, known or not', () => {
  const slots = new HandshakeSlots(LIMITS);
  slots.remember('192.0.2.1', 'north');
  assert.is(fill(slots, '192.0.2.1'), 8);
});

test.run();
