// Event reporting: class polls, confirmation, re-reporting, overflow, deadbands, device timestamps.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Pipe, T0, t48 } from './harness.js';

const ready = (cfg = {}) => {
  const p = new Pipe({ outstation: { unsolicited: false, ...cfg } }).withFixture();
  p.send('C0 02 50 01 00 07 07 00'); // clear restart
  p.send(`C0 02 32 01 07 01 ${t48(T0.epochMilliseconds)}`); // set time  (SEQ 0 reused: different octets)
  return p;
};
const DEVICE_TIME = T0.epochMilliseconds - 5_000; // the device's own timestamp, not when we noticed

test('a binary change is a class 1 event with the device time; CON=1; IIN1.1 until reported', () => {
  const p = ready();
  p.outstation.update('binary', 1, { flags: 1, value: 1, time: DEVICE_TIME });
  assert.equal(p.send('C1 17'), ['C1 81 02 00 34 02 07 01 00 00']); // IIN1.1 CLASS_1_EVENTS
  assert.equal(p.send('C2 01 3C 02 06'), [
    'E2 81 00 00' + // FIR FIN CON seq 2; IIN1.1 cleared: the event is now reported
    ` 02 02 28 01 00 01 00 81 ${t48(DEVICE_TIME)}`, // g2v2 q28 count 1, index 1, ONLINE|STATE, time
  ]);
});

test('events are deleted only on CONFIRM with the same SEQ; unconfirmed they are reported again', () => {
  const p = ready();
  p.outstation.update('binary', 0, { flags: 1, value: 0, time: DEVICE_TIME });
  const first = p.send('C1 01 3C 02 06');
  assert.equal(p.send('C5 00'), []); // CONFIRM with the wrong SEQ: ignored
  p.advance(5000); // confirm timeout
  p.tick();
  assert.equal(p.send('C2 01 3C 02 06'), [first[0]!.replace(/^E1/, 'E2')]);
  assert.equal(p.send('C2 00'), []);
  assert.equal(p.send('C3 01 3C 02 06'), ['C3 81 00 00']);
});

test('analog change beyond the deadband is a class 2 event (g32v7); within it, none', () => {
  const p = ready();
  assert.is(p.outstation.update('analog', 1, { flags: 1, value: 120.9, time: DEVICE_TIME }), false);
  assert.is(p.outstation.update('analog', 1, { flags: 1, value: 121.5, time: DEVICE_TIME }), true);
  assert.equal(p.send('C1 01 3C 03 06'), [`E1 81 00 00 20 07 28 01 00 01 00 01 00 00 F3 42 ${t48(DEVICE_TIME)}`]);
});

test('integrity poll: events first, then static data', () => {
  const p = ready();
  p.outstation.update('binary', 1, { flags: 1, value: 1, time: DEVICE_TIME });
  const [r] = p.send('C1 01 3C 02 06 3C 03 06 3C 04 06 3C 01 06');
  assert.is(r, `E1 81 00 00 02 02 28 01 00 01 00 81 ${t48(DEVICE_TIME)} 01 02 00 00 01 81 81 1E 05 00 00 01 01 00 00 28 42 01 00 00 F1 42`);
});

test('READ g2v0 with a count (q07) returns at most that many events', () => {
  const p = ready();
  p.outstation.update('binary', 0, { flags: 1, value: 0, time: 1 });
  p.outstation.update('binary', 1, { flags: 1, value: 1, time: 2 });
  assert.equal(p.send('C1 01 02 00 07 01'), [`E1 81 02 00 02 02 28 01 00 00 00 01 ${t48(1)}`]); // one left: IIN1.1
});

test('READ g32v3 answers analog events as 32-bit integers with time', () => {
  const p = ready();
  p.outstation.update('analog', 0, { flags: 1, value: 7, time: 3 });
  assert.equal(p.send('C1 01 20 03 06'), [`E1 81 00 00 20 03 28 01 00 00 00 01 07 00 00 00 ${t48(3)}`]);
});

test('buffer overflow drops the oldest and sets IIN2.3 until the buffer drains', () => {
  const p = ready({ eventCapacityPerClass: 2 });
  for (let i = 0; i < 3; i++) p.outstation.update('binary', 0, { flags: 1, value: i % 2, time: 10 + i });
  const [r] = p.send('C1 01 3C 02 06');
  assert.is(r, `E1 81 00 08 02 02 28 02 00 00 00 81 ${t48(11)} 00 00 01 ${t48(12)}`);
  p.send('C1 00');
  assert.equal(p.send('C2 17'), ['C2 81 00 00 34 02 07 01 00 00']);
});

test('events across fragments: each fragment CON=1, its events deleted by its own CONFIRM', () => {
  const p = ready({ maxTxFragment: 4 + 5 + 2 * 9 }); // header + q28 header + two g2v2 with index
  for (let i = 0; i < 3; i++) p.outstation.update('binary', i % 2, { flags: 1, value: i === 0 ? 0 : 1, time: 100 + i });
  assert.equal(p.send('C4 01 3C 02 06'), [`A4 81 00 00 02 02 28 02 00 00 00 01 ${t48(100)} 01 00 81 ${t48(101)}`]); // FIR, CON, not FIN
  assert.is(p.outstation.events.size(), 3);
  assert.equal(p.send('C4 00'), [`65 81 00 00 02 02 28 01 00 00 00 81 ${t48(102)}`]); // FIN, CON, SEQ 5
  assert.is(p.outstation.events.size(), 1);
  assert.equal(p.send('C5 00'), []);
  assert.is(p.outstation.events.size(), 0);
});

test.run();
