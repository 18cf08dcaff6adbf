// Encode and decode fixed-size objects by interpreting the field list of their table row.
import { Dnp3Error } from '../errors.js';
import { Flags } from './table.js';
import type { ObjectField, ObjectSpec } from './table.js';

/** A point's value as objects carry it: flags (without the state bit), a number (binary: 0/1), time in ms. */
export interface PointValue {
  flags: number;
  value: number;
  /** Milliseconds since 1970 UTC; ignored by variations without time. */
  time: number;
}

import { readT48, saturate, TWO_32, writeT48 } from './primitives.js';

export { readT48, writeT48 } from './primitives.js';

function fieldSize(f: ObjectField): number {
  switch (f) {
    case 'binaryFlags': case 'flags': case 'u8': return 1;
    case 'i16': case 'u16': return 2;
    case 'i32': case 'u32': case 'f32': return 4;
    case 'f64': return 8;
    case 't48': return 6;
  }
}

export function specSize(spec: ObjectSpec): number {
  return spec.fields.reduce((n, f) => n + fieldSize(f), 0);
}

/** Writes one object at `at`; returns the octets written. */
export function encodeObject(spec: ObjectSpec, p: PointValue, view: DataView, at: number): number {
  let o = at;
  let flagsAt = -1;
  let over = false;
  for (const f of spec.fields) {
    switch (f) {
      case 'binaryFlags': view.setUint8(o, (p.flags & 0x7f) | (p.value ? Flags.STATE : 0)); break;
      case 'flags': flagsAt = o; view.setUint8(o, p.flags & 0xff); break;
      case 'u8': view.setUint8(o, p.value & 0xff); break;
      case 'i16': { const s = saturate(p.value, -32768, 32767); over ||= s.over; view.setInt16(o, s.v, true); break; }
      case 'i32': { const s = saturate(p.value, -(2 ** 31), 2 ** 31 - 1); over ||= s.over; view.setInt32(o, s.v, true); break; }
      case 'u16': { const s = saturate(p.value, 0, 0xffff); view.setUint16(o, s.v, true); break; }
      case 'u32': { const s = saturate(p.value, 0, TWO_32 - 1); view.setUint32(o, s.v, true); break; }
      case 'f32': view.setFloat32(o, p.value, true); break;
      case 'f64': view.setFloat64(o, p.value, true); break;
      case 't48': writeT48(view, o, p.time); break;
    }
    o += fieldSize(f);
  }
  if (over && flagsAt >= 0) view.setUint8(flagsAt, view.getUint8(flagsAt) | Flags.OVER_RANGE);
  return o - at;
}

/** Reads one object. Multi-value objects (g12) return their fields in `raw`. */
export function decodeObject(spec: ObjectSpec, bytes: Uint8Array, at: number): PointValue & { raw: number[] } {
  const size = specSize(spec);
  if (at + size > bytes.length) throw new Dnp3Error('objects', 'OBJECT_BAD_SIZE', `g${spec.group}v${spec.variation}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = { flags: 0, value: 0, time: 0, raw: [] as number[] };
  let o = at;
  for (const f of spec.fields) {
    let v = 0;
    switch (f) {
      case 'binaryFlags': v = view.getUint8(o); out.flags = v & 0x7f; out.value = v & Flags.STATE ? 1 : 0; break;
      case 'flags': v = view.getUint8(o); out.flags = v; break;
      case 'u8': v = view.getUint8(o); out.value = v; break;
      case 'i16': v = view.getInt16(o, true); out.value = v; break;
      case 'i32': v = view.getInt32(o, true); out.value = v; break;
      case 'u16': v = view.getUint16(o, true); out.value = v; break;
      case 'u32': v = view.getUint32(o, true); out.value = v; break;
      case 'f32': v = view.getFloat32(o, true); out.value = v; break;
      case 'f64': v = view.getFloat64(o, true); out.value = v; break;
      case 't48': v = readT48(view, o); out.time = v; break;
    }
    out.raw.push(v);
    o += fieldSize(f);
  }
  return out;
}
