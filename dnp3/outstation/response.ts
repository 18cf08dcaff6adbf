// Turns what a response must carry (runs of objects) into fragments no larger than the maximum transmit size.
// A run is split across fragments when it does not fit; each fragment remembers which events it carries, so
// a CONFIRM of that fragment deletes exactly those events.
import { encodeControl } from '../app/header.js';
import { Qualifier } from '../app/object-header.js';
import { encodeObject, specSize } from '../objects/codec.js';
import { GENERATED_ENCODERS } from '../objects/objects.generated.js';
import type { ObjectSpec } from '../objects/table.js';
import type { PointValue } from '../objects/codec.js';

export type Run =
  /** Consecutive indices from `start`: qualifier 00 or 01 (packed objects: one bit each). */
  | { kind: 'range'; spec: ObjectSpec; start: number; values: PointValue[] }
  /** Index-prefixed objects (events, 17/28 reads): qualifier 28. */
  | { kind: 'indexed'; spec: ObjectSpec; entries: { index: number; value: PointValue; eventId?: number }[] }
  /** Objects without index (g50, g52): qualifier 07. */
  | { kind: 'count'; spec: ObjectSpec; values: PointValue[] }
  /** Pre-encoded octets that must stay whole (echoed controls). */
  | { kind: 'raw'; bytes: Uint8Array };

export interface PackedFragment {
  body: number[];
  eventIds: number[];
}

export const RESPONSE_HEADER_SIZE = 4;

// One scratch buffer: objects are at most 15 octets, and encoding is synchronous.
const SCRATCH = new Uint8Array(64);
const SCRATCH_VIEW = new DataView(SCRATCH.buffer);

function bytesOf(spec: ObjectSpec, v: PointValue): number[] {
  const generated = GENERATED_ENCODERS.get(spec.group * 256 + spec.variation);
  const n = generated ? generated(SCRATCH_VIEW, 0, v) : encodeObject(spec, v, SCRATCH_VIEW, 0);
  return Array.from(SCRATCH.subarray(0, n));
}

function le16(v: number): number[] {
  return [v & 0xff, (v >>> 8) & 0xff];
}

function runLength(run: Run): number {
  switch (run.kind) {
    case 'range': case 'count': return run.values.length;
    case 'indexed': return run.entries.length;
    case 'raw': return 1;
  }
}

/** Packs runs into fragment bodies (without the 4-octet response header). */
export function packRuns(runs: readonly Run[], maxFragment: number): PackedFragment[] {
  return [...iterateFragments(runs, maxFragment)];
}

/**
 * Fragment bodies one at a time: a response of 80,000 points is a few hundred fragments, and only the first
 * is needed before the master confirms, so the rest are encoded on demand.
 */
export function* iterateFragments(runs: readonly Run[], maxFragment: number): Generator<PackedFragment, void, undefined> {
  let cur: PackedFragment = { body: [], eventIds: [] };
  let emitted = 0;
  const used = () => RESPONSE_HEADER_SIZE + cur.body.length;
  for (const run of runs) {
    const n = runLength(run);
    let i = 0;
    while (i < n) {
      const avail = maxFragment - used();
      if (run.kind === 'raw') {
        if (run.bytes.length > avail && cur.body.length > 0) { yield cur; emitted++; cur = { body: [], eventIds: [] }; continue; }
        cur.body.push(...run.bytes);
        i = n;
        continue;
      }
      const { spec } = run;
      const bits = spec.size === 'bits';
      const objSize = bits ? 0 : specSize(spec);
      let header: number;
      let per: number;
      if (run.kind === 'range') {
        const lastPossible = run.start + n - 1;
        header = 3 + (lastPossible > 0xff ? 4 : 2);
        per = objSize;
      } else if (run.kind === 'indexed') {
        header = 5;
        per = objSize + 2;
      } else {
        header = 4;
        per = objSize;
      }
      const room = avail - header;
      const fit = bits ? room * 8 : per === 0 ? n - i : Math.floor(room / per);
      if (fit <= 0) {
        if (cur.body.length === 0) throw new RangeError(`maxFragment ${maxFragment} cannot hold one g${spec.group}v${spec.variation}`);
        yield cur;
        emitted++;
        cur = { body: [], eventIds: [] };
        continue;
      }
      const take = Math.min(fit, n - i, 0xffff);
      const b = cur.body;
      if (run.kind === 'range') {
        const start = run.start + i;
        const stop = start + take - 1;
        const wide = run.start + n - 1 > 0xff;
        b.push(spec.group, spec.variation, wide ? Qualifier.RANGE_16 : Qualifier.RANGE_8);
        if (wide) b.push(...le16(start), ...le16(stop)); else b.push(start, stop);
        const slice = run.values.slice(i, i + take);
        if (bits) {
          const packed = new Array<number>(Math.ceil(take / 8)).fill(0);
          slice.forEach((v, k) => { if (v.value) packed[k >> 3]! |= 1 << (k & 7); });
          b.push(...packed);
        } else {
          for (const v of slice) b.push(...bytesOf(spec, v));
        }
      } else if (run.kind === 'indexed') {
        b.push(spec.group, spec.variation, Qualifier.INDEX_16_COUNT_16, ...le16(take));
        for (const e of run.entries.slice(i, i + take)) {
          b.push(...le16(e.index), ...bytesOf(spec, e.value));
          if (e.eventId !== undefined) cur.eventIds.push(e.eventId);
        }
      } else {
        b.push(spec.group, spec.variation, Qualifier.COUNT_8, take);
        for (const v of run.values.slice(i, i + take)) b.push(...bytesOf(spec, v));
      }
      i += take;
    }
  }
  if (cur.body.length > 0 || emitted === 0) yield cur;
}

/** Response header + body. */
export function buildFragment(
  control: { fir: boolean; fin: boolean; con: boolean; uns: boolean; seq: number },
  func: number,
  iin: number,
  body: readonly number[],
): Uint8Array {
  const out = new Uint8Array(RESPONSE_HEADER_SIZE + body.length);
  out[0] = encodeControl(control);
  out[1] = func;
  out[2] = (iin >>> 8) & 0xff;
  out[3] = iin & 0xff;
  out.set(body, RESPONSE_HEADER_SIZE);
  return out;
}
