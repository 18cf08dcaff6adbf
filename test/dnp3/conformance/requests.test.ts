// Requests the outstation refuses or answers specially: unknown functions and objects, qualifiers, ranges,
// controls (no outputs here), duplicates, broadcast, multi-fragment responses.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_READ_HEADERS } from '../../../dnp3/app/object-header.js';
import { Pipe } from './harness.js';

const pipe = (cfg = {}) => new Pipe({ outstation: { unsolicited: false, ...cfg } }).withFixture();

test('unknown function code -> IIN2.0 NO_FUNC_CODE_SUPPORT, no objects', () => {
  assert.equal(pipe().send('C1 1F'), ['C1 81 90 01']); // 0x1F ACTIVATE_CONFIG
  assert.equal(pipe().send('C1 0D'), ['C1 81 90 01']); // COLD_RESTART is not supported either
});

test('unknown group/variation -> IIN2.1 OBJECT_UNKNOWN; known headers in the same READ still answered', () => {
  assert.equal(pipe().send('C1 01 14 01 06'), ['C1 81 90 02']); // g20v1 counters: none here
  assert.equal(pipe().send('C1 01 14 01 06 01 02 00 01 01'), ['C1 81 90 02 01 02 00 01 01 01']);
});

test('unsupported qualifier -> IIN2.2 PARAMETER_ERROR', () => {
  assert.equal(pipe().send('C1 01 01 02 5B 01'), ['C1 81 90 04']);
});

test('range read partly past the end: the points that exist, plus PARAMETER_ERROR', () => {
  assert.equal(pipe().send('C1 01 01 02 00 01 05'), ['C1 81 90 04 01 02 00 01 01 01']);
  assert.equal(pipe().send('C1 01 1E 01 01 00 00 00 00'), ['C1 81 90 00 1E 01 00 00 00 01 2A 00 00 00']); // g30v1 q01 0..0 -> 32-bit 42
});

test('READ with index prefixes (q17) answers q28 with those points; packed g1v1 by range', () => {
  assert.equal(pipe().send('C1 01 1E 02 17 01 01'), ['C1 81 90 00 1E 02 28 01 00 01 00 01 78 00']); // 120.5 -> 120 (i16)
  assert.equal(pipe().send('C1 01 01 01 06'), ['C1 81 90 00 01 01 00 00 01 01']);
});

test('g12 controls are echoed with status NOT_SUPPORTED (4) and IIN2.2; DIRECT_OPERATE_NR gets no response', () => {
  const crob = '03 01 64 00 00 00 64 00 00 00 00'; // LATCH_ON, count 1, on 100 ms, off 100 ms, status 0
  assert.equal(pipe().send(`C1 05 0C 01 28 01 00 03 00 ${crob}`), [`C1 81 90 04 0C 01 28 01 00 03 00 ${crob.slice(0, -2)}04`]);
  assert.equal(pipe().send(`C1 03 0C 01 17 01 03 ${crob}`), [`C1 81 90 04 0C 01 17 01 03 ${crob.slice(0, -2)}04`]);
  assert.equal(pipe().send(`C1 06 0C 01 28 01 00 03 00 ${crob}`), []);
  assert.equal(pipe().send('C1 01 0C 01 06'), ['C1 81 90 02']); // READ g12: nothing to read
});

test('truncated request body -> PARAMETER_ERROR', () => {
  assert.equal(pipe().send('C1 01 3C'), ['C1 81 90 04']);
});

test('requests with FIR/FIN clear or CON/UNS set are ignored', () => {
  assert.equal(pipe().send('81 01 3C 01 06'), []);
  assert.equal(pipe().send('F1 01 3C 01 06'), []);
  assert.equal(pipe().send('D1 01 3C 01 06'), []);
});

test('a repeated non-READ request is answered again without executing twice', () => {
  const p = pipe();
  assert.equal(p.send('C1 02 50 01 00 07 07 00'), ['C1 81 10 00']);
  p.outstation.definePoints('binary', 2, { eventClass: 1 });
  assert.equal(p.send('C1 02 50 01 00 07 07 00'), ['C1 81 10 00']);
});

test('broadcast (0xFFFF) is executed, not answered; the next response carries IIN1.0 once', () => {
  const p = pipe();
  assert.equal(p.send('C1 02 50 01 00 07 07 00', 0xffff), []);
  assert.equal(p.send('C2 17'), ['C2 81 11 00 34 02 07 01 00 00']); // BROADCAST | NEED_TIME; restart cleared
  assert.equal(p.send('C3 17'), ['C3 81 10 00 34 02 07 01 00 00']);
});

test('a response larger than the fragment size is split; each next fragment follows the CONFIRM', () => {
  const p = pipe({ maxTxFragment: 20 });
  const frags = p.send('C5 01 3C 01 06');
  assert.equal(frags, ['A5 81 90 00 01 02 00 00 01 81 01']); // FIR, CON (more follow), seq 5
  assert.equal(p.send('C5 00'), ['46 81 90 00 1E 05 00 00 01 01 00 00 28 42 01 00 00 F1 42']); // FIN, seq 6
});

test('a READ naming the same points again and again answers each point once (the response is at most the database)', () => {
  const once = pipe().send('C1 01 3C 01 06');
  assert.equal(pipe().send('C1 01 3C 01 06 3C 01 06 3C 01 06'), once, 'class 0 three times');
  assert.equal(pipe().send('C1 01 01 02 00 00 01 01 02 00 00 01 01 02 06'), ['C1 81 90 00 01 02 00 00 01 81 01']);
  // Overlapping headers: the second gives only what the first did not.
  assert.equal(pipe().send('C1 01 1E 01 00 00 00 1E 01 06'), ['C1 81 90 00 1E 01 00 00 00 01 2A 00 00 00 1E 01 00 01 01 01 78 00 00 00']);
  // Index prefixes naming one point many times: once.
  assert.equal(pipe().send('C1 01 1E 02 17 04 01 01 01 01'), ['C1 81 90 00 1E 02 28 01 00 01 00 01 78 00']);
});

test(`a READ with more than ${MAX_READ_HEADERS} object headers: IIN2.2 PARAMETER_ERROR, no objects, counted; ${MAX_READ_HEADERS} are answered`, () => {
  const seen: string[] = [];
  const p = new Pipe({ outstation: { unsolicited: false }, onDiscard: (r) => seen.push(r) }).withFixture();
  const headers = (n: number) => Array.from({ length: n }, () => '3C 01 06').join(' ');
  assert.equal(p.send(`C1 01 ${headers(MAX_READ_HEADERS + 1)}`), ['C1 81 90 04']);
  assert.equal(seen, ['readTooManyHeaders']);
  assert.equal(p.send(`C2 01 ${headers(MAX_READ_HEADERS)}`), pipe().send('C2 01 3C 01 06'));
  // A frame full of headers (80 class 0 reads) is refused just the same (test/security/dnp3-attacks.test.ts: a
  // whole 2048-octet fragment of them over TLS).
  assert.equal(p.send(`C3 01 ${headers(80)}`), ['C3 81 90 04']);
});

test.run();
