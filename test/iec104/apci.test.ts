import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApduParser, decodeApdu, encodeApdu, seqDistance, seqNext, UFunction, type UFunctionName } from '../../iec104/apci/apci.js';
import { Iec104Error } from '../../iec104/errors.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

test('U frames: every function encodes to 68 04 xx 00 00 00 and back', () => {
  for (const fn of Object.keys(UFunction) as UFunctionName[]) {
    const b = encodeApdu({ format: 'U', fn });
    assert.is(hex(b), `6804${UFunction[fn].toString(16).padStart(2, '0')}000000`);
    assert.equal(decodeApdu(b), { format: 'U', fn });
  }
  assert.is(hex(encodeApdu({ format: 'U', fn: 'STARTDT_ACT' })), '680407000000');
});

test('I and S frames carry N(S)/N(R) shifted by one bit, modulo 32768', () => {
  const i = encodeApdu({ format: 'I', ns: 32767, nr: 300, asdu: new Uint8Array([1, 2]) });
  assert.is(hex(i), '6806feff58020102');
  assert.equal(decodeApdu(i), { format: 'I', ns: 32767, nr: 300, asdu: new Uint8Array([1, 2]) });
  const s = encodeApdu({ format: 'S', nr: 5 });
  assert.is(hex(s), '680401000a00');
  assert.equal(decodeApdu(s), { format: 'S', nr: 5 });
  assert.throws(() => encodeApdu({ format: 'S', nr: 32768 }), /outside/);
  assert.is(seqNext(32767), 0);
  assert.is(seqDistance(32760, 3), 11);
});

test('bad frames are refused with their reason', () => {
  const code = (b: number[]) => { try { decodeApdu(new Uint8Array(b)); return 'none'; } catch (e) { return (e as Iec104Error).code; } };
  assert.is(code([0x69, 4, 7, 0, 0, 0]), 'BAD_START');
  assert.is(code([0x68, 3, 7, 0, 0]), 'BAD_LENGTH');
  assert.is(code([0x68, 4, 0x0f, 0, 0, 0]), 'BAD_CONTROL'); // two U functions at once
  assert.is(code([0x68, 5, 1, 0, 0, 0, 9]), 'BAD_LENGTH'); // S frame with payload
  assert.is(code([0x68, 4, 0, 0, 0, 0]), 'BAD_LENGTH'); // I frame without ASDU
});

test('the stream parser splits and joins chunks, and throws on a bad start', () => {
  const p = new ApduParser();
  const two = new Uint8Array([...encodeApdu({ format: 'U', fn: 'TESTFR_ACT' }), ...encodeApdu({ format: 'S', nr: 1 })]);
  assert.equal(p.push(two.subarray(0, 3)), []);
  assert.equal(p.push(two.subarray(3)), [{ format: 'U', fn: 'TESTFR_ACT' }, { format: 'S', nr: 1 }]);
  assert.throws(() => p.push(new Uint8Array([0x00, 0x04])), (e: unknown) => e instanceof Iec104Error && e.code === 'BAD_START');
});

test.run();
