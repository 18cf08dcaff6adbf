// A capture of IEC 104 over TLS as it went over the wire: a TCP relay between the master and the station records
// both directions' TLS bytes (no capture privileges needed), and tshark decrypts them with the station's NSS
// key log and dissects every APDU inside (docs/decisions.md#iec-104-tls-capture-check).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { UFunction, type Apdu } from '../../../iec104/apci/apci.js';
import { toPcap, type Chunk } from '../dnp3/pcap.js';

export interface Relay {
  port: number;
  /** Per connection, in accept order: the TLS bytes each way ('rx' master to station, 'tx' back), as read. */
  connections: Chunk[][];
  close(): Promise<void>;
}

/** Listens on an ephemeral port and relays every connection to 127.0.0.1:`target`, recording both directions. */
export async function startRelay(target: number): Promise<Relay> {
  const connections: Chunk[][] = [];
  const open = new Set<Socket>();
  const server = createServer((master) => {
    const chunks: Chunk[] = [];
    connections.push(chunks);
    const station = connect(target, '127.0.0.1');
    for (const [from, to, direction] of [[master, station, 'rx'], [station, master, 'tx']] as const) {
      open.add(from);
      from.on('data', (b: Buffer) => {
        chunks.push({ direction, bytes: Uint8Array.from(b), timeMs: Date.now() });
        to.write(b);
      });
      // One side gone (a killed master, a station closing): the other goes too, as on a direct connection.
      from.on('close', () => { open.delete(from); to.destroy(); });
      from.on('error', () => {});
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    connections,
    close: () => {
      for (const s of open) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Cuts reads into TCP segments of at most `mss` octets: small, so that records of every kind (certificates,
 * a GI answer) span segments and tshark has to reassemble them, as on a link with a small MSS. */
export function segments(chunks: readonly Chunk[], mss = 128): Chunk[] {
  return chunks.flatMap((c) => Array.from({ length: Math.ceil(c.bytes.length / mss) }, (_, i) => ({ ...c, bytes: c.bytes.subarray(i * mss, (i + 1) * mss) })));
}

/** One APDU, the same whether from tshark or from our parser: `I <N(S)> <N(R)> <type id> <COT>`, `S <N(R)>`, `U <function>`. */
export interface ApduSign { direction: 'rx' | 'tx'; sign: string }

export function apduSign(a: Apdu): string {
  if (a.format === 'I') return `I ${a.ns} ${a.nr} ${a.asdu[0]} ${a.asdu[2]! & 0x3f}`;
  return a.format === 'S' ? `S ${a.nr}` : `U ${a.fn}`;
}

/** tshark's UType: the U control octet shifted past its two format bits. */
const U_BY_UTYPE = new Map(Object.entries(UFunction).map(([k, v]) => [v >> 2, k]));

export interface Decoded {
  apdus: ApduSign[];
  /** TLS handshake message types tshark read; 20 (Finished) is only readable decrypted. */
  handshakeTypes: number[];
  /** Records sent encrypted (after ChangeCipherSpec, or any TLS 1.3 application-data record). */
  encryptedRecords: number;
  /** Records tshark decrypted (its "Decrypted TLS" data sources). */
  decryptedRecords: number;
  /** Frames tshark marks malformed or with an expert warning or error, as `frame: message`. */
  problems: string[];
  cipherSuite: string;
}

/** The station's port in the capture: tshark's IEC 104 port, so the dissector is found inside TLS below. */
const PORT = 2404;

function attrs(tag: string): Record<string, string> {
  return Object.fromEntries([...tag.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
}

interface Walk { apdus: ApduSign[]; handshakeTypes: number[]; encryptedRecords: number; cipherSuite: string }

/** Reads tshark's PDML in document order, so each APDU keeps its own ASDU (`-T fields` flattens a frame). */
function walkPdml(pdml: string): Walk {
  const out: Walk = { apdus: [], handshakeTypes: [], encryptedRecords: 0, cipherSuite: '' };
  const changedCipher = { rx: false, tx: false };
  for (const packet of pdml.split('<packet>').slice(1)) {
    const direction = /name="tcp.srcport"[^>]*show="(\d+)"/.exec(packet)?.[1] === String(PORT) ? 'tx' : 'rx';
    let apdu: { format?: number; ns?: string; nr?: string; utype?: number; typeid?: string; cot?: string } | undefined;
    const close = () => {
      if (!apdu) return;
      const sign = apdu.format === 0 ? `I ${apdu.ns} ${apdu.nr} ${apdu.typeid} ${apdu.cot}` : apdu.format === 1 ? `S ${apdu.nr}` : `U ${U_BY_UTYPE.get(apdu.utype ?? -1) ?? apdu.utype}`;
      out.apdus.push({ direction, sign });
      apdu = undefined;
    };
    for (const m of packet.matchAll(/<(proto|field)\s([^>]*)>/g)) {
      const a = attrs(m[2]!);
      const show = a.show ?? '';
      switch (a.name) {
        case 'iec60870_104': close(); apdu = {}; break;
        case 'iec60870_104.type': apdu!.format = Number(show); break;
        case 'iec60870_104.utype': apdu!.utype = Number(show); break;
        case 'iec60870_104.tx': apdu!.ns = show; break;
        case 'iec60870_104.rx': apdu!.nr = show; break;
        case 'iec60870_asdu.typeid': apdu!.typeid = show; break;
        case 'iec60870_asdu.causetx': apdu!.cot = show; break;
        case 'tls.handshake.type': out.handshakeTypes.push(Number(show)); break;
        case 'tls.record.content_type':
          if (show === '20') changedCipher[direction] = true;
          else if (show === '23' || changedCipher[direction]) out.encryptedRecords++;
          break;
        case 'tls.handshake.ciphersuite': if (direction === 'tx') out.cipherSuite = a.showname ?? show; break;
      }
    }
    close();
  }
  return out;
}

/**
 * Writes `chunks` (one connection's TLS bytes) as a pcap, the station on port 2404, and has tshark decrypt it
 * with `keylog` and dissect IEC 104 inside. Files go to `dir`.
 */
export function decodeCapture(tshark: string, chunks: readonly Chunk[], keylog: string, dir: string): Decoded {
  const pcap = join(dir, 'iec104-tls.pcap');
  const keys = join(dir, 'iec104-tls.keylog');
  const lua = join(dir, 'iec104-in-tls.lua');
  writeFileSync(pcap, toPcap(segments(chunks), PORT));
  writeFileSync(keys, keylog);
  // tshark's "Decode As" cannot map a TLS port to IEC 104 (its dissector is not one TLS offers, and has no name to
  // look up), so a line of Lua hands decrypted data on 2404 to the dissector IEC 104 put on TCP port 2404.
  writeFileSync(lua, `DissectorTable.get("tls.port"):add(${PORT}, DissectorTable.get("tcp.port"):get_dissector(${PORT}))\n`);
  const run = (...more: string[]) => execFileSync(tshark, ['-r', pcap, '-X', `lua_script:${lua}`, '-o', `tls.keylog_file:${keys}`, '-d', `tcp.port==${PORT},tls`, ...more],
    { encoding: 'utf8', maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'pipe'] });
  const walked = walkPdml(run('-T', 'pdml'));
  const decryptedRecords = (run('-x').match(/^Decrypted TLS \(/gm) ?? []).length;
  const problems = run('-Y', '_ws.malformed || _ws.expert.severity >= "warning"', '-T', 'fields', '-e', 'frame.number', '-e', '_ws.expert.message')
    .split('\n').filter(Boolean).map((l) => l.replace('\t', ': '));
  return { ...walked, decryptedRecords, problems };
}
