// The generated encoders: committed output equals what the table generates now (drift check), and every
// generated encoder writes exactly what the table-interpreting codec writes (random values, saturation).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { GENERATED_PATH, generateObjectsSource } from '../../../dnp3/objects/generate.js';
import { GENERATED_ENCODERS } from '../../../dnp3/objects/objects.generated.js';
import { encodeObject, specSize } from '../../../dnp3/objects/codec.js';
import { objectSpec } from '../../../dnp3/objects/table.js';
import { prng } from '../helpers/hex.js';

test('objects.generated.ts is up to date with table.ts (run: node --import tsx dnp3/objects/generate.ts --write)', () => {
  assert.is(readFileSync(GENERATED_PATH, 'utf8'), generateObjectsSource());
});

test('generated encoders = interpreted codec, including saturation and OVER_RANGE', () => {
  const rand = prng(21);
  const values = [0, 1, -1, 0.5, 123.5, 32767, 32768, -32769, 2 ** 31, -(2 ** 31) - 1, Infinity, -Infinity, 1e12];
  for (const [id, encode] of GENERATED_ENCODERS) {
    const spec = objectSpec(id >> 8, id & 0xff)!;
    for (let i = 0; i < 200; i++) {
      const p = { flags: Math.floor(rand() * 256), value: i < values.length ? values[i]! : (rand() - 0.5) * 2 ** (rand() * 40), time: Math.floor(rand() * 2 ** 47) };
      const a = new Uint8Array(specSize(spec));
      const b = new Uint8Array(specSize(spec));
      assert.is(encode(new DataView(a.buffer), 0, p), specSize(spec));
      encodeObject(spec, p, new DataView(b.buffer), 0);
      assert.equal(a, b, `g${spec.group}v${spec.variation} ${JSON.stringify(p)}`);
    }
  }
});

test.run();
