// Diagnostics (issue 21 point 6): every frame or request the outstation discards or refuses is reported once,
// with its reason, through the whole stack; a multi-drop connection counts a frame for another bank only when
// no bank has its address. Events caused by a stored check-in are reported to the observer when sent and
// when confirmed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeFrame } from '../../../dnp3/link/frame.js';
import { MultiDropStack } from '../../../dnp3/outstation/stack.js';
import { Outstation } from '../../../dnp3/outstation/outstation.js';
import type { DiscardReason } from '../../../dnp3/diagnostics/reasons.js';
import { DISCARD_REASONS } from '../../../dnp3/diagnostics/reasons.js';
import { toHex } from '../helpers/hex.js';
import { Pipe, T0 } from './harness.js';

const frame = (f: { func: number; dest?: number; src?: number; fcb?: boolean; fcv?: boolean; data?: number[] }) =>
  toHex(encodeFrame({ dir: true, prm: true, fcb: f.fcb ?? false, fcvDfc: f.fcv ?? false, func: f.func, dest: f.dest ?? 10, src: f.src ?? 1, data: Uint8Array.from(f.data ?? []) }));

function pipe(cfg = {}): { p: Pipe; seen: DiscardReason[] } {
  const seen: DiscardReason[] = [];
  const p = new Pipe({ outstation: { unsolicited: false, ...cfg }, onDiscard: (r) => seen.push(r) });
  return { p, seen };
}

test('CONFIRMED_USER_DATA before RESET_LINK_STATES: no answer at all, counted as notReset with the sentence the API shows', () => {
  const { p, seen } = pipe();
  const read = frame({ func: 3, fcb: true, fcv: true, data: [0xc0, 0xc0, 0x01, 0x3c, 0x01, 0x06] });
  assert.equal(p.link(read), []);
  assert.equal(seen, ['notReset']);
  assert.is(DISCARD_REASONS.notReset.text.startsWith('confirmed user data before a link reset: ignored, the master must send RESET_LINK_STATES'), true);
  // After the reset the same frame is acknowledged and answered.
  p.link(frame({ func: 0 }));
  assert.is(p.link(read).length, 2);
  assert.equal(seen, ['notReset']);
});

test('link, transport and application discards, one reason each', () => {
  const cases: [string, string, DiscardReason[]][] = [
    ['junk before a frame', `00 11 22 ${frame({ func: 9 })}`, ['junk']],
    ['wrong source', frame({ func: 4, src: 2, data: [0xc0, 0xc0, 0x01, 0x3c, 0x01, 0x06] }), ['wrongSource']],
    ['wrong destination', frame({ func: 4, dest: 77, data: [0xc0, 0xc0, 0x01] }), ['wrongDestination']],
    ['segment without FIR', frame({ func: 4, data: [0x80, 0xc0, 0x01, 0x3c, 0x01, 0x06] }), ['noFir']],
    ['request with CON', frame({ func: 4, data: [0xc0, 0xe0, 0x01, 0x3c, 0x01, 0x06] }), ['requestWithCon']],
    ['application fragment of one octet', frame({ func: 4, data: [0xc0, 0xc0] }), ['tooShort']],
    ['CONFIRM nobody waits for', frame({ func: 4, data: [0xc0, 0xc3, 0x00] }), ['unexpectedConfirm']],
    ['COLD_RESTART', frame({ func: 4, data: [0xc0, 0xc1, 0x0d] }), ['functionNotSupported']],
    ['READ with 33 object headers', frame({ func: 4, data: [0xc0, 0xc1, 0x01, ...Array.from({ length: 33 }, () => [0x3c, 0x01, 0x06]).flat()] }), ['readTooManyHeaders']],
    ['ENABLE_UNSOLICITED with unsolicited off', frame({ func: 4, data: [0xc0, 0xc1, 0x14, 0x3c, 0x02, 0x06] }), ['unsolicitedOff']],
  ];
  for (const [name, hex, reasons] of cases) {
    const { p, seen } = pipe();
    p.link(hex);
    assert.equal(seen, reasons, name);
  }
});

test('a null unsolicited response nobody confirms (a master that takes it for the answer to its READ): counted at every retry', () => {
  const { p, seen } = pipe({ unsolicited: true });
  assert.is(p.tick().length, 1, 'the null unsolicited response at start-up');
  p.advance(5000);
  assert.is(p.tick().length, 1, 'sent again');
  assert.equal(seen, ['unsolicitedConfirmTimeout']);
});

test('multi-drop: a frame for bank 1 is no discard of bank 0; a frame for no bank is one wrongDestination', () => {
  const seen: DiscardReason[] = [];
  const banks = [new Outstation({ unsolicited: false }), new Outstation({ unsolicited: false })];
  const stack = new MultiDropStack({ link: { address: 10, masterAddress: 1 }, onDiscard: (r) => seen.push(r) }, () => banks);
  const bytes = (hex: string) => Uint8Array.from(hex.split(' ').map((h) => parseInt(h, 16)));
  assert.is(stack.receive(bytes(frame({ func: 9, dest: 11 })), T0).length, 1);
  assert.equal(seen, []);
  stack.receive(bytes(frame({ func: 9, dest: 12 })), T0);
  stack.receive(bytes(frame({ func: 9, dest: 11, src: 5 })), T0);
  assert.equal(seen, ['wrongDestination', 'wrongSource']);
});

test('events of a stored check-in: the observer hears of the send and of the master\'s confirm, once per fragment', () => {
  const { p } = pipe();
  p.withFixture();
  p.send('C0 02 50 01 00 07 07 00');
  const heard: string[] = [];
  p.outstation.observer = {
    sent: (events, nowMs, uns) => heard.push(`sent ${events.length} ${nowMs - T0.epochMilliseconds} ${uns}`),
    confirmed: (events, nowMs, uns) => heard.push(`confirmed ${events.length} ${nowMs - T0.epochMilliseconds} ${uns}`),
  };
  const origin = { storedAtMs: T0.epochMilliseconds - 1000, recordId: 1, testFault: { id: 3, phase: 'fault' as const } };
  p.outstation.update('binary', 1, { flags: 1, value: 1, time: T0.epochMilliseconds }, origin);
  p.outstation.update('analog', 1, { flags: 1, value: 130, time: T0.epochMilliseconds }, origin);
  p.outstation.update('binary', 0, { flags: 1, value: 0, time: T0.epochMilliseconds }); // not from a check-in
  const [response] = p.send('C1 01 3C 02 06 3C 03 06');
  assert.match(response!, /^E1/);
  p.advance(40);
  p.send('C1 00');
  assert.equal(heard, ['sent 2 0 false', 'confirmed 2 40 false']);
});

test.run();
