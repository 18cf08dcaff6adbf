// Writes one TCP connection's bytes as a pcap (raw IPv4 + TCP, master 127.0.0.2:40000 -> outstation 127.0.0.1:20000
// or 2404), without capture privileges: a DNP3 session's plaintext, so tshark dissects what went inside TLS without
// a key log, or an IEC 104 session's TLS bytes as relayed, which tshark decrypts with a key log
// (test/interop/iec104/tls-capture.ts).

export interface Chunk { direction: 'rx' | 'tx'; bytes: Uint8Array; timeMs: number }

function checksum(b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < b.length; i += 2) sum += (b[i]! << 8) | (b[i + 1] ?? 0);
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

const MASTER = [127, 0, 0, 2];
const OUTSTATION = [127, 0, 0, 1];

function packet(c: Chunk, seq: number, ack: number, port: number): Uint8Array {
  const fromMaster = c.direction === 'rx';
  const [src, dst] = fromMaster ? [MASTER, OUTSTATION] : [OUTSTATION, MASTER];
  const [sport, dport] = fromMaster ? [40000, port] : [port, 40000];
  const tcp = new Uint8Array(20 + c.bytes.length);
  const tv = new DataView(tcp.buffer);
  tv.setUint16(0, sport); tv.setUint16(2, dport); tv.setUint32(4, seq >>> 0); tv.setUint32(8, ack >>> 0);
  tcp[12] = 5 << 4; tcp[13] = 0x18; tv.setUint16(14, 65535);
  tcp.set(c.bytes, 20);
  const pseudo = new Uint8Array(12 + tcp.length);
  pseudo.set(src, 0); pseudo.set(dst, 4); pseudo[9] = 6; new DataView(pseudo.buffer).setUint16(10, tcp.length); pseudo.set(tcp, 12);
  tv.setUint16(16, checksum(pseudo));
  const ip = new Uint8Array(20 + tcp.length);
  const iv = new DataView(ip.buffer);
  ip[0] = 0x45; iv.setUint16(2, ip.length); ip[8] = 64; ip[9] = 6; ip.set(src, 12); ip.set(dst, 16);
  iv.setUint16(10, checksum(ip.subarray(0, 20)));
  ip.set(tcp, 20);
  return ip;
}

/** `port`: the outstation's, which picks tshark's dissector (20000 DNP3, 2404 IEC 104). */
export function toPcap(chunks: readonly Chunk[], port = 20000): Uint8Array {
  const parts: Uint8Array[] = [];
  const header = new DataView(new ArrayBuffer(24));
  header.setUint32(0, 0xa1b2c3d4, true); header.setUint16(4, 2, true); header.setUint16(6, 4, true);
  header.setUint32(16, 65535, true); header.setUint32(20, 101, true); // LINKTYPE_RAW
  parts.push(new Uint8Array(header.buffer));
  let masterSeq = 1000;
  let outstationSeq = 5000;
  for (const c of chunks) {
    const p = c.direction === 'rx' ? packet(c, masterSeq, outstationSeq, port) : packet(c, outstationSeq, masterSeq, port);
    if (c.direction === 'rx') masterSeq += c.bytes.length; else outstationSeq += c.bytes.length;
    const rec = new DataView(new ArrayBuffer(16));
    rec.setUint32(0, Math.floor(c.timeMs / 1000), true); rec.setUint32(4, (c.timeMs % 1000) * 1000, true);
    rec.setUint32(8, p.length, true); rec.setUint32(12, p.length, true);
    parts.push(new Uint8Array(rec.buffer), p);
  }
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(total);
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}
