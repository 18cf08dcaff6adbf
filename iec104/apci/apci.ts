// APCI of IEC 60870-5-104 (clause 5): start octet 0x68, length, four control octets. I frames number what
// they carry (N(S), N(R) modulo 32768), S frames only acknowledge, U frames start, stop and test the
// transfer. Pure: bytes in, frames out.
import { Iec104Error } from '../errors.js';

export const START = 0x68;
/** Control octets after the length; the length counts them and the ASDU (at most 253). */
export const CONTROL_LENGTH = 4;
export const MAX_APDU_LENGTH = 253;
export const MAX_ASDU_LENGTH = MAX_APDU_LENGTH - CONTROL_LENGTH;
export const SEQ_MODULO = 32768;

/** U-format functions: the control octet 1 with exactly one function bit. */
export const UFunction = {
  STARTDT_ACT: 0x07, STARTDT_CON: 0x0b,
  STOPDT_ACT: 0x13, STOPDT_CON: 0x23,
  TESTFR_ACT: 0x43, TESTFR_CON: 0x83,
} as const;
export type UFunctionName = keyof typeof UFunction;
const U_BY_CODE = new Map(Object.entries(UFunction).map(([k, v]) => [v, k as UFunctionName]));

export type Apdu =
  | { format: 'I'; ns: number; nr: number; asdu: Uint8Array }
  | { format: 'S'; nr: number }
  | { format: 'U'; fn: UFunctionName };

export const seqNext = (n: number): number => (n + 1) % SEQ_MODULO;
/** How many numbers lie from `from` up to `to` (modulo 32768). */
export const seqDistance = (from: number, to: number): number => (to - from + SEQ_MODULO) % SEQ_MODULO;

function checkSeq(n: number): void {
  if (!Number.isInteger(n) || n < 0 || n >= SEQ_MODULO) throw new RangeError(`sequence number ${n} outside 0..32767`);
}

export function encodeApdu(a: Apdu): Uint8Array {
  const asdu = a.format === 'I' ? a.asdu : new Uint8Array(0);
  if (asdu.length > MAX_ASDU_LENGTH) throw new Iec104Error('TOO_LONG', 'apci', `ASDU of ${asdu.length} octets: at most ${MAX_ASDU_LENGTH}`);
  const out = new Uint8Array(2 + CONTROL_LENGTH + asdu.length);
  out[0] = START;
  out[1] = CONTROL_LENGTH + asdu.length;
  if (a.format === 'I') {
    checkSeq(a.ns); checkSeq(a.nr);
    out[2] = (a.ns << 1) & 0xfe; out[3] = a.ns >> 7; out[4] = (a.nr << 1) & 0xfe; out[5] = a.nr >> 7;
    out.set(asdu, 6);
  } else if (a.format === 'S') {
    checkSeq(a.nr);
    out[2] = 0x01; out[4] = (a.nr << 1) & 0xfe; out[5] = a.nr >> 7;
  } else {
    out[2] = UFunction[a.fn];
  }
  return out;
}

/** Decodes one whole APDU (start, length and control octets included). */
export function decodeApdu(b: Uint8Array): Apdu {
  if (b[0] !== START) throw new Iec104Error('BAD_START', 'apci', `APDU starts with 0x${(b[0] ?? 0).toString(16)}, not 0x68`);
  const len = b[1] ?? 0;
  if (len < CONTROL_LENGTH || len > MAX_APDU_LENGTH) throw new Iec104Error('BAD_LENGTH', 'apci', `APDU length ${len} outside ${CONTROL_LENGTH}..${MAX_APDU_LENGTH}`);
  if (b.length !== len + 2) throw new Iec104Error('TRUNCATED', 'apci', `APDU of ${b.length} octets, its length says ${len + 2}`);
  const c1 = b[2]!, c2 = b[3]!, c3 = b[4]!, c4 = b[5]!;
  if ((c1 & 0x01) === 0) {
    if (len === CONTROL_LENGTH) throw new Iec104Error('BAD_LENGTH', 'apci', 'I frame without an ASDU');
    return { format: 'I', ns: (c1 >> 1) | (c2 << 7), nr: (c3 >> 1) | (c4 << 7), asdu: b.slice(6) };
  }
  if (len !== CONTROL_LENGTH) throw new Iec104Error('BAD_LENGTH', 'apci', `${(c1 & 0x03) === 0x01 ? 'S' : 'U'} frame of length ${len}, must be 4`);
  if ((c1 & 0x03) === 0x01) {
    if (c1 !== 0x01 || c2 !== 0 || (c3 & 0x01) !== 0) throw new Iec104Error('BAD_CONTROL', 'apci', 'S frame with reserved bits set');
    return { format: 'S', nr: (c3 >> 1) | (c4 << 7) };
  }
  const fn = U_BY_CODE.get(c1 as (typeof UFunction)[UFunctionName]);
  if (!fn || c2 !== 0 || c3 !== 0 || c4 !== 0) throw new Iec104Error('BAD_CONTROL', 'apci', `U frame with control 0x${c1.toString(16)}: not one STARTDT/STOPDT/TESTFR act or con`);
  return { format: 'U', fn };
}

/**
 * Splits a TCP stream into APDUs. A bad start octet or length cannot be resynchronised in 104 (there is no
 * CRC to find the next frame), so it throws and the session closes the connection (clause 5.2). `next` takes
 * one APDU at a time, so a session that must stop (its write queue full) leaves the rest here, unparsed.
 */
export class ApduParser {
  private buf = new Uint8Array(0);
  private at = 0;

  /** Adds received bytes after those not yet taken. */
  feed(chunk: Uint8Array): void {
    const rest = this.buf.subarray(this.at);
    const joined = new Uint8Array(rest.length + chunk.length);
    joined.set(rest); joined.set(chunk, rest.length);
    this.buf = joined;
    this.at = 0;
  }

  /** The next whole APDU, or undefined until more bytes arrive. */
  next(): Apdu | undefined {
    if (this.buf.length - this.at < 2) return undefined;
    const at = this.at;
    if (this.buf[at] !== START) throw new Iec104Error('BAD_START', 'apci', `APDU starts with 0x${this.buf[at]!.toString(16)}, not 0x68`);
    const len = this.buf[at + 1]!;
    if (len < CONTROL_LENGTH || len > MAX_APDU_LENGTH) throw new Iec104Error('BAD_LENGTH', 'apci', `APDU length ${len} outside ${CONTROL_LENGTH}..${MAX_APDU_LENGTH}`);
    if (this.buf.length - at < len + 2) return undefined;
    this.at += len + 2;
    return decodeApdu(this.buf.subarray(at, at + len + 2));
  }

  /** Octets received and not yet taken. */
  get buffered(): number {
    return this.buf.length - this.at;
  }

  /** Every whole APDU in what has arrived so far. */
  push(chunk: Uint8Array): Apdu[] {
    this.feed(chunk);
    const out: Apdu[] = [];
    for (let a = this.next(); a; a = this.next()) out.push(a);
    return out;
  }
}
