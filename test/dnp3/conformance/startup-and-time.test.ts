// Start-up indications and time synchronisation (reference sections 3, 5).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Pipe, T0, t48 } from './harness.js';

const unsolOff = { outstation: { unsolicited: false } };

test('integrity poll after start-up: DEVICE_RESTART and NEED_TIME, every static point', () => {
  const p = new Pipe(unsolOff).withFixture();
  assert.equal(p.send('C0 01 3C 02 06 3C 03 06 3C 04 06 3C 01 06'), [
    'C0 81 90 00' + // FIR FIN seq 0, RESPONSE, IIN1 = DEVICE_RESTART | NEED_TIME
    ' 01 02 00 00 01 81 01' + // g1v2 q00 0..1: b0 ONLINE|STATE, b1 ONLINE
    ' 1E 05 00 00 01 01 00 00 28 42 01 00 00 F1 42', // g30v5 q00 0..1: 42.0, 120.5 (f32 LE)
  ]);
});

test('DEVICE_RESTART is held until the master writes g80v1 index 7 = 0', () => {
  const p = new Pipe(unsolOff).withFixture();
  assert.equal(p.send('C1 17'), ['C1 81 90 00 34 02 07 01 00 00']);
  assert.equal(p.send('C2 17'), ['C2 81 90 00 34 02 07 01 00 00']); // still set: nothing has cleared it
  assert.equal(p.send('C3 02 50 01 00 07 07 00'), ['C3 81 10 00']); // WRITE g80v1 q00 7..7 = 0 -> only NEED_TIME left
  assert.equal(p.send('C4 01 3C 02 06'), ['C4 81 10 00']);
});

test('g80 write of another index or value is a PARAMETER_ERROR and keeps the restart bit', () => {
  const p = new Pipe(unsolOff).withFixture();
  assert.equal(p.send('C4 02 50 01 00 07 07 01'), ['C4 81 90 04']);
  assert.equal(p.send('C5 02 50 01 00 06 06 00'), ['C5 81 90 04']);
});

test('non-LAN time sync: DELAY_MEASURE answers g52v2 = 0 ms; WRITE g50v1 clears NEED_TIME; READ g50v1 shows the clock', () => {
  const p = new Pipe(unsolOff).withFixture();
  assert.equal(p.send('C1 17'), ['C1 81 90 00 34 02 07 01 00 00']); // g52v2 q07 count 1, 0 ms
  const masterTime = T0.epochMilliseconds + 3_600_000; // master is an hour ahead
  assert.equal(p.send(`C2 02 32 01 07 01 ${t48(masterTime)}`), ['C2 81 80 00']);
  p.advance(1500);
  assert.equal(p.send('C3 01 32 01 07 01'), [`C3 81 80 00 32 01 07 01 ${t48(masterTime + 1500)}`]);
});

test('LAN time sync: RECORD_CURRENT_TIME then WRITE g50v3 adds the time elapsed since the record', () => {
  const p = new Pipe(unsolOff).withFixture();
  assert.equal(p.send('C1 02 32 03 07 01 ' + t48(1000)), ['C1 81 90 04']); // g50v3 with no record: refused
  assert.equal(p.send('C2 18'), ['C2 81 90 00']);
  p.advance(250);
  const masterAtRecord = T0.epochMilliseconds + 10_000;
  assert.equal(p.send(`C3 02 32 03 07 01 ${t48(masterAtRecord)}`), ['C3 81 80 00']);
  assert.equal(p.send('C4 01 32 01 07 01'), [`C4 81 80 00 32 01 07 01 ${t48(masterAtRecord + 250)}`]);
});

test('two time writes in one request are refused', () => {
  const p = new Pipe(unsolOff).withFixture();
  assert.equal(p.send(`C1 02 32 01 07 01 ${t48(5)} 32 01 07 01 ${t48(6)}`), ['C1 81 80 04']);
});

test('SEQ of every request is echoed', () => {
  const p = new Pipe(unsolOff);
  for (let seq = 0; seq < 16; seq++) {
    const ac = (0xc0 | seq).toString(16).toUpperCase();
    assert.equal(p.send(`${ac} 17`)[0]!.slice(0, 2), ac);
  }
});

test.run();
