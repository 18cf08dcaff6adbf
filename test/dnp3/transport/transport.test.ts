import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TransportReceiver, segmentFragment } from '../../../dnp3/transport/transport.js';

const frag = (n: number) => Uint8Array.from({ length: n }, (_, i) => i & 0xff);

test('segmentation: 249 octets per segment, FIR on first, FIN on last, consecutive SEQ wrapping at 64', () => {
  const { segments, nextSeq } = segmentFragment(frag(600), 62);
  assert.equal(segments.map((s) => s.length), [250, 250, 103]);
  assert.equal(segments.map((s) => s[0]), [0x40 | 62, 63, 0x80 | 0]);
  assert.is(nextSeq, 1);
});

test('empty fragment is one FIR|FIN segment', () => {
  assert.equal(Array.from(segmentFragment(new Uint8Array(0), 5).segments[0]!), [0xc5]);
});

test('reassembly round trip', () => {
  const rx = new TransportReceiver();
  const f = frag(2048);
  const out = segmentFragment(f, 10).segments.map((s) => rx.push(s).fragment).filter(Boolean);
  assert.equal(out, [f]);
});

test('non-FIR with nothing in progress is dropped; a sequence gap abandons the fragment', () => {
  const rx = new TransportReceiver();
  assert.is(rx.push(Uint8Array.of(0x81, 1)).discarded, 'noFir');
  rx.push(Uint8Array.of(0x40 | 3, 1));
  assert.is(rx.push(Uint8Array.of(0x80 | 5, 2)).discarded, 'badSequence');
  assert.is(rx.push(Uint8Array.of(0x80 | 4, 2)).discarded, 'noFir');
});

test('FIR restarts; fragment above the limit is dropped whole', () => {
  const rx = new TransportReceiver(300);
  rx.push(Uint8Array.of(0x40, 1, 2));
  assert.equal(Array.from(rx.push(Uint8Array.of(0xc7, 9)).fragment!), [9]);
  const segs = segmentFragment(frag(400), 0).segments;
  assert.is(rx.push(segs[0]!).discarded, undefined);
  assert.is(rx.push(segs[1]!).discarded, 'tooLarge');
});

test('broadcast segments must be FIR+FIN', () => {
  assert.is(new TransportReceiver().push(Uint8Array.of(0x40, 1), true).discarded, 'broadcastNotSingle');
});

test.run();
