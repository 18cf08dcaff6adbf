// Unsolicited responses: the null response at start-up, ENABLE/DISABLE, event reporting, retries, confirms.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Pipe, t48 } from './harness.js';

test('start-up: null unsolicited response with DEVICE_RESTART, retried until confirmed (UNS=1, same SEQ)', () => {
  const p = new Pipe().withFixture();
  assert.equal(p.tick(), ['F0 82 90 00']); // FIR FIN CON UNS seq 0, UNSOLICITED_RESPONSE
  p.advance(4999);
  assert.equal(p.tick(), []);
  p.advance(1);
  assert.equal(p.tick(), ['F0 82 90 00']); // retry: same octets
  assert.equal(p.send('D0 00'), []); // CONFIRM, UNS=1, seq 0
  assert.equal(p.tick(), []); // no classes enabled yet
});

test('events go unsolicited only for enabled classes; confirm deletes them; the next uses SEQ+1', () => {
  const p = new Pipe().withFixture();
  p.tick();
  p.send('D0 00');
  p.send('C1 02 50 01 00 07 07 00');
  assert.equal(p.send('C2 14 3C 02 06'), ['C2 81 10 00']); // ENABLE_UNSOLICITED class 1
  p.outstation.update('analog', 1, { flags: 1, value: 200, time: 5 }); // class 2: not enabled
  assert.equal(p.tick(), []);
  p.outstation.update('binary', 0, { flags: 1, value: 0, time: 7 });
  assert.equal(p.tick(), [`F1 82 14 00 02 02 28 01 00 00 00 01 ${t48(7)}`]); // IIN: NEED_TIME | CLASS_2 pending
  assert.equal(p.tick(), []); // waiting for the confirm
  p.advance(5000);
  assert.equal(p.tick(), [`F1 82 14 00 02 02 28 01 00 00 00 01 ${t48(7)}`]); // retry, same SEQ
  p.send('D1 00');
  assert.equal(p.send('C3 01 3C 02 06'), ['C3 81 14 00']); // class 1 is empty now
});

test('DISABLE_UNSOLICITED stops event reporting; the events wait for a poll', () => {
  const p = new Pipe().withFixture();
  p.tick();
  p.send('D0 00');
  p.send('C1 14 3C 02 06 3C 03 06 3C 04 06');
  assert.equal(p.send('C2 15 3C 02 06 3C 03 06 3C 04 06'), ['C2 81 90 00']);
  p.outstation.update('binary', 0, { flags: 1, value: 0, time: 7 });
  assert.equal(p.tick(), []);
});

test('no unsolicited while a solicited response waits for its confirm', () => {
  const p = new Pipe().withFixture();
  p.tick();
  p.send('D0 00');
  p.send('C1 14 3C 02 06');
  p.outstation.update('binary', 0, { flags: 1, value: 0, time: 7 });
  p.outstation.update('binary', 1, { flags: 1, value: 1, time: 8 });
  p.send('C2 01 02 00 07 01'); // read one event: CON=1, waiting
  assert.equal(p.tick(), []);
  p.send('C2 00');
  assert.equal(p.tick(), [`F1 82 90 00 02 02 28 01 00 01 00 81 ${t48(8)}`]);
});

test('ENABLE/DISABLE_UNSOLICITED when unsolicited is off for the integration -> IIN2.0', () => {
  const p = new Pipe({ outstation: { unsolicited: false } });
  assert.equal(p.send('C1 14 3C 02 06'), ['C1 81 90 01']);
  assert.equal(p.tick(), []);
});

test('ENABLE_UNSOLICITED naming a non-event class object -> OBJECT_UNKNOWN', () => {
  const p = new Pipe();
  assert.equal(p.send('C1 14 3C 01 06'), ['C1 81 90 02']);
});

test.run();
