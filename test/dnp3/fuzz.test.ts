// Property tests for every byte parser: random and mutated input raises only Dnp3Error, accepted input
// re-encodes to the same octets, and nothing hangs or grows without bound. Seeds are fixed so a failure
// reproduces; raise FUZZ_ITERATIONS locally for a longer run.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Temporal } from 'temporal-polyfill';
import { Dnp3Error } from '../../dnp3/errors.js';
import { encodeFrame, parseFrame } from '../../dnp3/link/frame.js';
import { LinkParser } from '../../dnp3/link/parser.js';
import { TransportReceiver } from '../../dnp3/transport/transport.js';
import { parseObjectHeaders, encodeObjectHeader } from '../../dnp3/app/object-header.js';
import { parseRequest } from '../../dnp3/app/header.js';
import { decodeObject, encodeObject, specSize } from '../../dnp3/objects/codec.js';
import { OBJECT_TABLE } from '../../dnp3/objects/table.js';
import { OutstationStack } from '../../dnp3/outstation/stack.js';
import { hex, prng, randomBytes } from './helpers/hex.js';

const N = Number(process.env.FUZZ_ITERATIONS ?? 2000);

function onlyTyped(fn: () => unknown): unknown {
  try {
    return fn();
  } catch (err) {
    if (!(err instanceof Dnp3Error)) throw err;
    return undefined;
  }
}

const SEEDS = [
  hex('05 64 05 C0 01 00 00 04 E9 21'),
  hex('05 64 0B C4 0A 00 01 00 AC D1 C0 C0 01 3C 01 06 FF 50'),
  hex('05 64 14 F3 01 00 00 04 0A 3B C0 C3 01 3C 02 06 3C 03 06 3C 04 06 3C 01 06 9A 12'),
];

function mutate(rand: () => number, b: Uint8Array): Uint8Array {
  const out = b.slice();
  const n = 1 + Math.floor(rand() * 3);
  for (let i = 0; i < n; i++) out[Math.floor(rand() * out.length)] = Math.floor(rand() * 256);
  return rand() < 0.2 ? out.subarray(0, Math.floor(rand() * out.length)) : out;
}

test('link frame: random and mutated octets -> Dnp3Error or a frame that re-encodes identically', () => {
  const rand = prng(1);
  for (let i = 0; i < N; i++) {
    const input = i % 2 ? randomBytes(rand, Math.floor(rand() * 300)) : mutate(rand, SEEDS[i % SEEDS.length]!);
    const f = onlyTyped(() => parseFrame(input)) as ReturnType<typeof parseFrame> | undefined;
    if (f) assert.equal(encodeFrame(f), input);
  }
});

test('link frame: valid random frames round-trip', () => {
  const rand = prng(2);
  for (let i = 0; i < N; i++) {
    const data = randomBytes(rand, 1 + Math.floor(rand() * 250));
    const bytes = encodeFrame({ dir: rand() < 0.5, prm: true, fcb: rand() < 0.5, fcvDfc: false, func: 4, dest: Math.floor(rand() * 65536), src: Math.floor(rand() * 65536), data });
    assert.equal(encodeFrame(parseFrame(bytes)), bytes);
  }
});

test('link stream parser: random chunks never throw, buffer stays bounded, valid frames still found', () => {
  const rand = prng(3);
  const p = new LinkParser();
  let found = 0;
  for (let i = 0; i < N; i++) {
    const chunk = rand() < 0.3 ? SEEDS[i % 3]! : rand() < 0.5 ? mutate(rand, SEEDS[i % 3]!) : randomBytes(rand, Math.floor(rand() * 64));
    found += p.push(chunk).length;
  }
  assert.ok(found > N * 0.2);
  assert.ok(p.push(SEEDS[0]!).length >= 0);
});

test('transport receiver: random segments never throw, fragments bounded by the limit', () => {
  const rand = prng(4);
  const rx = new TransportReceiver(512);
  for (let i = 0; i < N; i++) {
    const r = rx.push(randomBytes(rand, Math.floor(rand() * 250)), rand() < 0.1);
    if (r.fragment) assert.ok(r.fragment.length <= 512);
  }
});

test('application headers: random bodies -> Dnp3Error or headers that re-encode to a prefix of the input', () => {
  const rand = prng(5);
  for (let i = 0; i < N; i++) {
    const body = randomBytes(rand, Math.floor(rand() * 40));
    onlyTyped(() => parseRequest(body));
    const withData = rand() < 0.5;
    const headers = onlyTyped(() => parseObjectHeaders(body, withData)) as ReturnType<typeof parseObjectHeaders> | undefined;
    if (headers && !withData && headers.every((h) => !h.indices)) {
      assert.equal(Uint8Array.from(headers.flatMap((h) => encodeObjectHeader(h))), body);
    }
  }
});

test('object codecs: decode(encode(x)) = x for every fixed-size row', () => {
  const rand = prng(6);
  for (const spec of OBJECT_TABLE) {
    if (spec.size === 'bits' || spec.requestOnly || spec.fields.length === 0) continue;
    for (let i = 0; i < 50; i++) {
      const size = specSize(spec);
      const bytes = randomBytes(rand, size);
      const v = onlyTyped(() => decodeObject(spec, bytes, 0)) as ReturnType<typeof decodeObject>;
      if (spec.fields.includes('f32') && Number.isNaN(v.value)) continue;
      if (spec.kind === 'command') continue; // multi-value object: echoed raw, not re-encoded
      const out = new Uint8Array(size);
      encodeObject(spec, v, new DataView(out.buffer), 0);
      assert.equal(out, bytes, `g${spec.group}v${spec.variation}`);
    }
  }
});

test('whole stack: random and mutated frames (with valid CRCs) never crash, every reply parses', () => {
  const rand = prng(7);
  const stack = new OutstationStack({ link: { address: 10, masterAddress: 1 }, outstation: { maxTxFragment: 256 } });
  stack.outstation.definePoints('binary', 50, { eventClass: 1 });
  stack.outstation.definePoints('analog', 50, { eventClass: 2 });
  let now = Temporal.Instant.from('2026-11-20T00:00:00Z');
  for (let i = 0; i < N; i++) {
    const app = rand() < 0.5 ? randomBytes(rand, Math.floor(rand() * 60)) : mutate(rand, hex('C0 01 3C 02 06 3C 03 06 3C 04 06 3C 01 06'));
    const data = Uint8Array.from([0xc0 | (i & 0x3f), ...app]).subarray(0, 250);
    const frame = encodeFrame({ dir: true, prm: true, fcb: false, fcvDfc: false, func: 4, dest: 10, src: 1, data });
    const input = rand() < 0.2 ? mutate(rand, frame) : frame;
    stack.outstation.update(rand() < 0.5 ? 'binary' : 'analog', Math.floor(rand() * 50), { flags: 1, value: rand() * 100, time: i });
    now = now.add({ milliseconds: Math.floor(rand() * 3000) });
    for (const out of [...stack.receive(input, now), ...stack.tick(now)]) parseFrame(out);
  }
  assert.ok(stack.outstation.events.size() <= 3 * 1000);
});

test.run();
