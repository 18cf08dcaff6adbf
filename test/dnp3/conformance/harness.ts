// Drives an OutstationStack as a master would: hex application fragments in, response fragments out as hex.
// Every frame the outstation sends is CRC-checked with the independent bit-wise CRC and reassembled with
// its transport headers checked, so a test asserting an application fragment also covers the layers below.
import { Temporal } from 'temporal-polyfill';
import { OutstationStack } from '../../../dnp3/outstation/stack.js';
import type { StackConfig } from '../../../dnp3/outstation/stack.js';
import { encodeFrame } from '../../../dnp3/link/frame.js';
import { checkFrameCrcs, hex, toHex } from '../helpers/hex.js';

export const T0 = Temporal.Instant.from('2026-11-20T14:05:00Z');
/** DNP3 time (48-bit ms, little-endian) as hex. T0 = 1_795_183_500_000 ms = E0 5A 46 F9 A1 01. */
export function t48(ms: number): string {
  const b: number[] = [];
  let v = ms;
  for (let i = 0; i < 6; i++) { b.push(v % 256); v = Math.floor(v / 256); }
  return toHex(Uint8Array.from(b));
}

export class Pipe {
  readonly stack: OutstationStack;
  now = T0;
  private txSeq = 0;

  constructor(config: Partial<StackConfig> = {}) {
    this.stack = new OutstationStack({ link: { address: 10, masterAddress: 1 }, ...config });
  }

  get outstation() { return this.stack.outstation; }

  /**
   * Two binaries (class 1) and two analogs (class 2, deadband 0.5) holding values, with no events yet:
   * b0 = on, b1 = off (flags ONLINE, time T0 - 60 s); a0 = 42 (heartbeat), a1 = 120.5.
   */
  withFixture(): this {
    const o = this.outstation;
    o.definePoints('binary', 2, { eventClass: 0 });
    o.definePoints('analog', 2, { eventClass: 0 });
    const time = T0.epochMilliseconds - 60_000;
    o.update('binary', 0, { flags: 1, value: 1, time });
    o.update('binary', 1, { flags: 1, value: 0, time });
    o.update('analog', 0, { flags: 1, value: 42, time });
    o.update('analog', 1, { flags: 1, value: 120.5, time });
    for (const i of [0, 1]) {
      o.db.configure('binary', i, { eventClass: 1 });
      o.db.configure('analog', i, { eventClass: 2, deadband: 0.5 });
    }
    return this;
  }

  advance(ms: number): void {
    this.now = this.now.add({ milliseconds: ms });
  }

  /** Raw link octets in, raw frames out (hex). */
  link(bytes: string): string[] {
    return this.stack.receive(hex(bytes), this.now).map((f) => {
      if (!checkFrameCrcs(f)) throw new Error(`bad CRC from outstation: ${toHex(f)}`);
      return toHex(f);
    });
  }

  /** One application fragment (hex) from the master, as UNCONFIRMED_USER_DATA; returns response fragments. */
  send(app: string, dest = 10): string[] {
    const segment = Uint8Array.from([0xc0 | this.txSeq, ...hex(app)]);
    this.txSeq = (this.txSeq + 1) & 0x3f;
    const frame = encodeFrame({ dir: true, prm: true, fcb: false, fcvDfc: false, func: 4, dest, src: 1, data: segment });
    return fragments(this.stack.receive(frame, this.now));
  }

  tick(): string[] {
    return fragments(this.stack.tick(this.now));
  }
}

/** Reassembles outstation frames into application fragments, checking CRCs and transport FIR/FIN/SEQ. */
export function fragments(frames: Uint8Array[]): string[] {
  const out: string[] = [];
  let cur: number[] | undefined;
  let lastSeq = -1;
  for (const f of frames) {
    if (!checkFrameCrcs(f)) throw new Error(`bad CRC from outstation: ${toHex(f)}`);
    if (f[3] !== 0x44 || f[4] !== 1 || f[5] !== 0 || f[6] !== 10 || f[7] !== 0) throw new Error(`unexpected link header ${toHex(f)}`);
    const data: number[] = [];
    for (let o = 10; o < f.length; o += 18) data.push(...f.subarray(o, Math.min(o + 16, f.length - 2)));
    const th = data[0]!;
    const seq = th & 0x3f;
    if (th & 0x40) cur = [];
    else if (!cur || seq !== ((lastSeq + 1) & 0x3f)) throw new Error('transport sequence broken');
    lastSeq = seq;
    cur!.push(...data.slice(1));
    if (th & 0x80) { out.push(toHex(Uint8Array.from(cur!))); cur = undefined; }
  }
  return out;
}
