// The data unit identifier (IEC 60870-5-104 clause 7.2 with its parameters): type id, variable structure
// qualifier (SQ, number), cause of transmission (T, P/N, cause) with originator address, common address
// (2 octets) and information object addresses (3 octets).
import { Iec104Error } from '../errors.js';

export const HEADER_SIZE = 6;
export const IOA_SIZE = 3;
export const MAX_IOA = 0xffffff;
/** Common address 0xFFFF is the global (broadcast) address. */
export const GLOBAL_CA = 0xffff;

export interface AsduHeader {
  typeId: number;
  /** SQ = 1: one IOA, the objects at consecutive addresses after it. */
  sequence: boolean;
  count: number;
  cause: number;
  negative: boolean;
  test: boolean;
  originator: number;
  commonAddress: number;
}

export function writeHeader(view: DataView, h: AsduHeader): void {
  if (h.count < 0 || h.count > 127) throw new RangeError(`${h.count} objects: an ASDU holds 0..127`);
  if (h.cause < 0 || h.cause > 63) throw new RangeError(`cause ${h.cause} outside 0..63`);
  view.setUint8(0, h.typeId);
  view.setUint8(1, (h.sequence ? 0x80 : 0) | h.count);
  view.setUint8(2, h.cause | (h.negative ? 0x40 : 0) | (h.test ? 0x80 : 0));
  view.setUint8(3, h.originator);
  view.setUint16(4, h.commonAddress, true);
}

export function readHeader(b: Uint8Array): AsduHeader {
  if (b.length < HEADER_SIZE) throw new Iec104Error('TRUNCATED', 'asdu', `ASDU of ${b.length} octets, shorter than its ${HEADER_SIZE}-octet header`);
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const vsq = v.getUint8(1);
  const c = v.getUint8(2);
  return {
    typeId: v.getUint8(0), sequence: (vsq & 0x80) !== 0, count: vsq & 0x7f,
    cause: c & 0x3f, negative: (c & 0x40) !== 0, test: (c & 0x80) !== 0, originator: v.getUint8(3), commonAddress: v.getUint16(4, true),
  };
}

export const readIoa = (v: DataView, at: number): number => v.getUint8(at) | (v.getUint8(at + 1) << 8) | (v.getUint8(at + 2) << 16);
export function writeIoa(v: DataView, at: number, ioa: number): void {
  if (!Number.isInteger(ioa) || ioa < 0 || ioa > MAX_IOA) throw new RangeError(`IOA ${ioa} outside 0..${MAX_IOA}`);
  v.setUint8(at, ioa & 0xff); v.setUint8(at + 1, (ioa >> 8) & 0xff); v.setUint8(at + 2, ioa >> 16);
}
