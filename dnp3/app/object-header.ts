// Object headers: group, variation, qualifier, range. Level 2 needs qualifiers 00/01 (start-stop), 06 (all),
// 07/08 (count) and 17/28 (count with 8/16-bit index prefixes). Anything else is refused with a typed error,
// which the outstation turns into PARAMETER_ERROR; an unknown group/variation becomes OBJECT_UNKNOWN.
import { Dnp3Error } from '../errors.js';
import { objectSpec } from '../objects/table.js';
import { specSize } from '../objects/codec.js';

/**
 * The most object headers one READ may carry (more is refused whole with IIN2.2: ../outstation/read.ts). Masters
 * send a handful (opendnp3's integrity poll: class 1, 2, 3, 0); a 2048-octet fragment could carry 680 headers
 * that each name every point of a bank.
 */
export const MAX_READ_HEADERS = 32;

export const Qualifier = {
  RANGE_8: 0x00,
  RANGE_16: 0x01,
  ALL: 0x06,
  COUNT_8: 0x07,
  COUNT_16: 0x08,
  INDEX_8_COUNT_8: 0x17,
  INDEX_16_COUNT_16: 0x28,
} as const;

export type Range =
  | { kind: 'all' }
  | { kind: 'range'; start: number; stop: number }
  | { kind: 'count'; count: number };

export interface ObjectHeader {
  group: number;
  variation: number;
  qualifier: number;
  range: Range;
  /** Index prefixes (qualifiers 17/28), one per object. */
  indices?: number[];
  /** Raw object data that followed the header (WRITE, SELECT/OPERATE). */
  data?: Uint8Array;
}

function u(b: Uint8Array, at: number, size: 1 | 2): number {
  if (at + size > b.length) throw new Dnp3Error('app', 'APP_TRUNCATED', `at ${at}`);
  return size === 1 ? b[at]! : b[at]! | (b[at + 1]! << 8);
}

/** Number of objects a range names (undefined for "all"). */
export function rangeCount(r: Range): number | undefined {
  return r.kind === 'all' ? undefined : r.kind === 'count' ? r.count : r.stop - r.start + 1;
}

/**
 * Parses every header of a request body. With `withData`, the object data after each header is read using the
 * object table's sizes, so a header naming an unknown object stops the parse (its data length is unknowable).
 */
export function parseObjectHeaders(body: Uint8Array, withData: boolean): ObjectHeader[] {
  const out: ObjectHeader[] = [];
  let at = 0;
  while (at < body.length) {
    if (at + 3 > body.length) throw new Dnp3Error('app', 'APP_TRUNCATED', 'object header');
    const group = body[at]!;
    const variation = body[at + 1]!;
    const qualifier = body[at + 2]!;
    at += 3;
    let range: Range;
    let prefix: 0 | 1 | 2 = 0;
    switch (qualifier) {
      case Qualifier.RANGE_8:
      case Qualifier.RANGE_16: {
        const size = qualifier === Qualifier.RANGE_8 ? 1 : 2;
        const start = u(body, at, size);
        const stop = u(body, at + size, size);
        at += 2 * size;
        if (start > stop) throw new Dnp3Error('app', 'APP_BAD_RANGE', `${start}..${stop}`);
        range = { kind: 'range', start, stop };
        break;
      }
      case Qualifier.ALL:
        range = { kind: 'all' };
        break;
      case Qualifier.COUNT_8:
      case Qualifier.COUNT_16:
      case Qualifier.INDEX_8_COUNT_8:
      case Qualifier.INDEX_16_COUNT_16: {
        const size = qualifier === Qualifier.COUNT_8 || qualifier === Qualifier.INDEX_8_COUNT_8 ? 1 : 2;
        range = { kind: 'count', count: u(body, at, size) };
        at += size;
        if (qualifier === Qualifier.INDEX_8_COUNT_8) prefix = 1;
        if (qualifier === Qualifier.INDEX_16_COUNT_16) prefix = 2;
        break;
      }
      default:
        throw new Dnp3Error('app', 'APP_BAD_QUALIFIER', `0x${qualifier.toString(16).padStart(2, '0')}`);
    }
    const header: ObjectHeader = { group, variation, qualifier, range };
    const count = rangeCount(range) ?? 0;
    const spec = objectSpec(group, variation);
    const hasData = withData && !spec?.requestOnly;
    if (hasData && !spec) throw new Dnp3Error('app', 'APP_UNKNOWN_OBJECT', `g${group}v${variation}`);
    if (prefix > 0 || hasData) {
      const indices: number[] = [];
      const start = at;
      if (spec?.size === 'bits' && hasData) {
        at += Math.ceil(count / 8);
        if (prefix > 0) throw new Dnp3Error('app', 'APP_BAD_QUALIFIER', 'index prefix on packed object');
      } else {
        const objSize = hasData && spec ? specSize(spec) : 0;
        const dataParts: Uint8Array[] = [];
        for (let i = 0; i < count; i++) {
          if (prefix !== 0) { indices.push(u(body, at, prefix)); at += prefix; }
          if (at + objSize > body.length) throw new Dnp3Error('app', 'APP_TRUNCATED', 'object data');
          dataParts.push(body.subarray(at, at + objSize));
          at += objSize;
        }
        if (hasData) {
          const data = new Uint8Array(objSize * count);
          dataParts.forEach((p, i) => data.set(p, i * objSize));
          header.data = data;
        }
      }
      if (at > body.length) throw new Dnp3Error('app', 'APP_TRUNCATED', 'object data');
      if (spec?.size === 'bits' && hasData) header.data = body.slice(start, at);
      if (prefix > 0) header.indices = indices;
    }
    out.push(header);
  }
  return out;
}

/** Encodes a header (no object data) for requests built by tests and masters. */
export function encodeObjectHeader(h: Pick<ObjectHeader, 'group' | 'variation' | 'qualifier' | 'range'>): number[] {
  const out = [h.group, h.variation, h.qualifier];
  const r = h.range;
  const le = (v: number, size: number) => (size === 1 ? [v & 0xff] : [v & 0xff, (v >>> 8) & 0xff]);
  if (r.kind === 'range') {
    const size = h.qualifier === Qualifier.RANGE_8 ? 1 : 2;
    out.push(...le(r.start, size), ...le(r.stop, size));
  } else if (r.kind === 'count') {
    const size = h.qualifier === Qualifier.COUNT_8 || h.qualifier === Qualifier.INDEX_8_COUNT_8 ? 1 : 2;
    out.push(...le(r.count, size));
  }
  return out;
}
