// Link frames (FT3): header 05 64 LEN CTRL DEST SRC CRC, then user data in 16-octet blocks each with its own CRC.
// Parsing and encoding are exact inverses: a frame that parses re-encodes to the same octets (fuzz-tested).
import { Dnp3Error } from '../errors.js';
import { crc16Dnp, crcMatches } from './crc.js';

export const START_1 = 0x05;
export const START_2 = 0x64;
export const HEADER_SIZE = 10;
export const MAX_USER_DATA = 250;
export const MAX_FRAME_SIZE = 292;

/** Primary (PRM=1) function codes, sent by the initiating station. */
export const PrimaryFunction = {
  RESET_LINK_STATES: 0,
  TEST_LINK_STATES: 2,
  CONFIRMED_USER_DATA: 3,
  UNCONFIRMED_USER_DATA: 4,
  REQUEST_LINK_STATUS: 9,
} as const;

/** Secondary (PRM=0) function codes, replies. */
export const SecondaryFunction = {
  ACK: 0,
  NACK: 1,
  LINK_STATUS: 11,
  NOT_SUPPORTED: 15,
} as const;

const PRIMARY = new Set<number>(Object.values(PrimaryFunction));
const SECONDARY = new Set<number>(Object.values(SecondaryFunction));

export interface LinkFrame {
  /** DIR: true when sent by a master. */
  dir: boolean;
  /** PRM: true for a primary (initiating) frame. */
  prm: boolean;
  /** FCB for primary frames; reserved (must be false) for secondary frames. */
  fcb: boolean;
  /** FCV for primary frames, DFC for secondary frames. */
  fcvDfc: boolean;
  func: number;
  dest: number;
  src: number;
  data: Uint8Array;
}

export function frameSize(userDataLength: number): number {
  return HEADER_SIZE + userDataLength + 2 * Math.ceil(userDataLength / 16);
}

export function controlByte(f: Pick<LinkFrame, 'dir' | 'prm' | 'fcb' | 'fcvDfc' | 'func'>): number {
  return (f.dir ? 0x80 : 0) | (f.prm ? 0x40 : 0) | (f.fcb ? 0x20 : 0) | (f.fcvDfc ? 0x10 : 0) | (f.func & 0x0f);
}

function putCrc(out: Uint8Array, start: number, at: number): void {
  const crc = crc16Dnp(out, start, at);
  out[at] = crc & 0xff;
  out[at + 1] = crc >>> 8;
}

/** Encodes one frame. Throws LINK_DATA_TOO_LONG past 250 octets of user data. */
export function encodeFrame(f: LinkFrame): Uint8Array {
  const n = f.data.length;
  if (n > MAX_USER_DATA) throw new Dnp3Error('link', 'LINK_DATA_TOO_LONG', String(n));
  const out = new Uint8Array(frameSize(n));
  out[0] = START_1;
  out[1] = START_2;
  out[2] = 5 + n;
  out[3] = controlByte(f);
  out[4] = f.dest & 0xff;
  out[5] = (f.dest >>> 8) & 0xff;
  out[6] = f.src & 0xff;
  out[7] = (f.src >>> 8) & 0xff;
  putCrc(out, 0, 8);
  let o = HEADER_SIZE;
  for (let i = 0; i < n; i += 16) {
    const block = f.data.subarray(i, Math.min(i + 16, n));
    out.set(block, o);
    putCrc(out, o, o + block.length);
    o += block.length + 2;
  }
  return out;
}

/**
 * Checks a frame header (the first 10 octets) and returns the whole frame size. The checks are the ones
 * opendnp3's parser makes before waiting for the body, so a corrupt LENGTH never makes us wait for data.
 */
export function checkHeader(b: Uint8Array, at = 0): number {
  if (b.length - at < HEADER_SIZE) throw new Dnp3Error('link', 'LINK_TOO_SHORT');
  if (b[at] !== START_1 || b[at + 1] !== START_2) throw new Dnp3Error('link', 'LINK_BAD_START');
  if (!crcMatches(b, at, at + 8)) throw new Dnp3Error('link', 'LINK_HEADER_CRC');
  const len = b[at + 2]!;
  if (len < 5) throw new Dnp3Error('link', 'LINK_BAD_LENGTH', String(len));
  const ctrl = b[at + 3]!;
  const prm = (ctrl & 0x40) !== 0;
  const func = ctrl & 0x0f;
  const n = len - 5;
  if (prm) {
    if (!PRIMARY.has(func)) throw new Dnp3Error('link', 'LINK_BAD_FUNCTION', `primary ${func}`);
    const fcv = (ctrl & 0x10) !== 0;
    const wantsFcv = func === PrimaryFunction.CONFIRMED_USER_DATA || func === PrimaryFunction.TEST_LINK_STATES;
    if (fcv !== wantsFcv) throw new Dnp3Error('link', 'LINK_BAD_FCV', `function ${func}`);
    const carriesData = func === PrimaryFunction.CONFIRMED_USER_DATA || func === PrimaryFunction.UNCONFIRMED_USER_DATA;
    if (carriesData !== n > 0) throw new Dnp3Error('link', 'LINK_UNEXPECTED_DATA', `function ${func}`);
  } else {
    if (!SECONDARY.has(func)) throw new Dnp3Error('link', 'LINK_BAD_FUNCTION', `secondary ${func}`);
    if (ctrl & 0x20) throw new Dnp3Error('link', 'LINK_BAD_FCV', 'reserved bit set on a secondary frame');
    if (n > 0) throw new Dnp3Error('link', 'LINK_UNEXPECTED_DATA', `secondary ${func}`);
  }
  return frameSize(n);
}

/** Parses exactly one frame occupying all of `b`. */
export function parseFrame(b: Uint8Array): LinkFrame {
  const size = checkHeader(b);
  if (b.length !== size) throw new Dnp3Error('link', 'LINK_BAD_LENGTH', `expected ${size} octets, got ${b.length}`);
  const n = b[2]! - 5;
  const data = new Uint8Array(n);
  let o = HEADER_SIZE;
  for (let i = 0; i < n; i += 16) {
    const len = Math.min(16, n - i);
    if (!crcMatches(b, o, o + len)) throw new Dnp3Error('link', 'LINK_BODY_CRC', `block at ${o}`);
    data.set(b.subarray(o, o + len), i);
    o += len + 2;
  }
  const ctrl = b[3]!;
  return {
    dir: (ctrl & 0x80) !== 0,
    prm: (ctrl & 0x40) !== 0,
    fcb: (ctrl & 0x20) !== 0,
    fcvDfc: (ctrl & 0x10) !== 0,
    func: ctrl & 0x0f,
    dest: b[4]! | (b[5]! << 8),
    src: b[6]! | (b[7]! << 8),
    data,
  };
}
