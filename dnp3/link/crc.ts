// CRC-16/DNP: polynomial 0x3D65 reflected (0xA6BC), init 0, final complement, sent low octet first.
// Table-driven because every 16-octet block of every frame is checked.

const TABLE = (() => {
  const t = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xa6bc : c >>> 1;
    t[i] = c;
  }
  return t;
})();

/** CRC of `bytes[start, end)`. `crc16Dnp(ascii('123456789'))` is 0xEA82. */
export function crc16Dnp(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = 0;
  for (let i = start; i < end; i++) crc = (crc >>> 8) ^ TABLE[(crc ^ bytes[i]!) & 0xff]!;
  return ~crc & 0xffff;
}

/** True when the two octets at `at` hold the little-endian CRC of `bytes[start, at)`. */
export function crcMatches(bytes: Uint8Array, start: number, at: number): boolean {
  const crc = crc16Dnp(bytes, start, at);
  return bytes[at] === (crc & 0xff) && bytes[at + 1] === crc >>> 8;
}
