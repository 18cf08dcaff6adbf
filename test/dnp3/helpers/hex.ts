// Hex helpers for tests: fragments are written as commented hex, "05 64 05 C0 ..." with any spacing.

export function hex(s: string): Uint8Array {
  const clean = s.replace(/#[^\n]*/g, '').replace(/[^0-9a-fA-F]/g, '');
  if (clean.length % 2) throw new Error(`odd hex: ${s}`);
  return Uint8Array.from(clean.match(/../g) ?? [], (h) => parseInt(h, 16));
}

export function toHex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).toUpperCase().padStart(2, '0')).join(' ');
}

/** Bit-by-bit CRC-16/DNP, independent of the table-driven one under test. */
export function referenceCrc(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xa6bc : crc >>> 1;
  }
  return ~crc & 0xffff;
}

/** Splits a frame into header and data blocks and checks every CRC with the reference implementation. */
export function checkFrameCrcs(frame: Uint8Array): boolean {
  const ok = (start: number, end: number) => {
    const crc = referenceCrc(frame.subarray(start, end));
    return frame[end] === (crc & 0xff) && frame[end + 1] === crc >>> 8;
  };
  if (!ok(0, 8)) return false;
  let o = 10;
  while (o < frame.length) {
    const len = Math.min(16, frame.length - o - 2);
    if (len <= 0 || !ok(o, o + len)) return false;
    o += len + 2;
  }
  return true;
}

/** Deterministic PRNG (mulberry32) so fuzz failures reproduce from the seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomBytes(rand: () => number, n: number): Uint8Array {
  return Uint8Array.from({ length: n }, () => Math.floor(rand() * 256));
}
