// Floods against the DNP3 listener (issue #28, point 4) on the real outstation server over mutual TLS, while
// an opendnp3 master (PyPI yadnp3, the interop suites' master) of another organisation polls it:
//  - a handshake flood: hundreds of connections that never finish (or never start) a TLS handshake and a burst
//    of full handshakes without a certificate, from two addresses. Over the caps they are closed at once;
//    the stalled ones are cut when the handshake times out; the other master is served throughout.
//  - a header flood: an authenticated master sends READs that each fill a 2048-octet fragment with 680
//    "class 0" headers. Each is answered IIN2.2 (parameter error) with no objects, nothing is built, and
//    the other master is served throughout.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { connect as tcpConnect, type Socket } from 'node:net';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { startDnp3Server, type Dnp3Refusal, type Dnp3Server } from '../../dnp3/server.js';
import { encodeFrame, frameSize, parseFrame } from '../../dnp3/link/frame.js';
import { segmentFragment } from '../../dnp3/transport/transport.js';
import { Iin } from '../../dnp3/app/header.js';
import { MAX_READ_HEADERS } from '../../dnp3/app/object-header.js';
import { hex, toHex } from '../dnp3/helpers/hex.js';
import { twoOrganisations } from '../dnp3/helpers/two-organisations.js';
import { Yadnp3Master, find } from '../../support/dnp3-master.js';
import { reportTally } from '../helpers/tally.js';
import { waitFor } from '../../support/wait-for.js';

const { dir, pem, integrations, outstations } = twoOrganisations('dnp3-flood-certs-', { north: 'TLSv1.2', south: 'TLSv1.2' });
const file = (name: string) => join(dir, `${name}.pem`);
const LIMITS = { handshakes: 32, handshakesPerAddress: 4, handshakeTimeoutMs: 3000, connections: 256 };

let server: Dnp3Server;
let south: Yadnp3Master;
const refusals: { reason: Dnp3Refusal; detail?: string }[] = [];
let tried = 0;
let refused = 0;

test.before(async () => {
  server = await startDnp3Server({
    port: 0, host: '127.0.0.1', limits: LIMITS,
    transport: { tls: { key: pem('outstation.test-key'), cert: pem('outstation.test'), ca: [pem('ca')] } },
    integrations: () => integrations,
    outstationsFor: (i) => [outstations.get(i.organizationId)!],
    onRefused: (reason, detail) => refusals.push({ reason, ...(detail ? { detail } : {}) }),
  });
  south = new Yadnp3Master(server.port, { ca: file('ca'), cert: file('scada.south.example'), key: file('scada.south.example-key') });
  const startup = await south.startup();
  assert.is(find(startup, 'analog', 0, false)?.value, 222, 'the south master reads its own outstation');
});

test.after(async () => {
  await south?.stop();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
  reportTally('dnp3-floods', { attacksTried: tried, attacksRefused: refused });
});

/** The other organisation's opendnp3 master polls and gets its points. */
async function southServed(when: string): Promise<void> {
  const answer = await south.command('integrity');
  assert.is(find(answer, 'analog', 0, false)?.value, 222, `the south master is served ${when}`);
}

/** A TCP connection from `from` that sends `first` (or nothing); resolves when the server closes it. */
function stalled(from: string, first?: Uint8Array): { socket: Socket; closed: () => boolean } {
  const socket = tcpConnect({ host: '127.0.0.1', port: server.port, localAddress: from });
  let closed = false;
  socket.on('error', () => {});
  socket.on('close', () => { closed = true; });
  if (first) socket.on('connect', () => socket.write(first));
  return { socket, closed: () => closed };
}

test('a TLS handshake flood from two addresses: capped, stalled handshakes cut, the other master served', async () => {
  const before = refusals.length;
  // 2 x 150 connections that never finish a handshake: half say nothing, half send half a ClientHello.
  const flood = ['127.0.0.2', '127.0.0.3'].flatMap((from) => Array.from({ length: 150 }, (_, i) => stalled(from, i % 2 ? hex('16 03 01 00 40') : undefined)));
  // And 60 complete handshakes without a client certificate, from a third address, all at once.
  const full = Array.from({ length: 60 }, () => new Promise<number>((resolve) => {
    let received = 0;
    const tcp = tcpConnect({ host: '127.0.0.1', port: server.port, localAddress: '127.0.0.4' });
    tcp.on('error', () => {});
    const s = connect({ socket: tcp, ca: pem('ca'), servername: 'outstation.test' });
    s.on('secureConnect', () => s.write(hex('05 64 0B C4 0A 00 01 00 AC D1 C0 C0 01 3C 01 06 FF 50')));
    s.on('data', (c: Buffer) => { received += c.length; });
    s.on('error', () => {});
    s.on('close', () => resolve(received));
  }));
  tried += flood.length + full.length;
  await southServed('during a handshake flood');
  await southServed('during a handshake flood (again)');

  // Every flood connection is closed by the server (this side never closes one): at once when over a cap, or
  // when its handshake times out (without the timeout, Node would keep them for two minutes).
  await waitFor('every stalled connection closed by the server', () => flood.every((f) => f.closed()), { timeoutMs: 60_000, intervalMs: 200 });
  const answered = await Promise.all(full);
  assert.equal(answered.filter((n) => n > 0), [], 'no DNP3 octet to a master without a certificate');
  refused += flood.length + full.length;

  const busy = refusals.slice(before).filter((r) => r.reason === 'busy');
  assert.ok(busy.length > 0, 'connections over the handshake caps were refused');
  assert.ok(busy.every((r) => ['127.0.0.2', '127.0.0.3', '127.0.0.4'].includes(r.detail!)), `only the flooding addresses were refused: ${[...new Set(busy.map((r) => r.detail))].join(', ')}`);
  const cut = refusals.slice(before).filter((r) => r.reason === 'handshake');
  assert.ok(cut.length > 0, 'the stalled handshakes within the caps were cut');
  await southServed('after a handshake flood');
});

/** A READ filling one 2048-octet fragment: 680 headers "class 0, all points". */
function headerFloodRequest(seq: number, transportSeq: number): { bytes: Buffer; nextSeq: number } {
  const app = Uint8Array.from([0xc0 | (seq & 0x0f), 0x01, ...Array.from({ length: 680 }, () => [0x3c, 0x01, 0x06]).flat()]);
  const { segments, nextSeq } = segmentFragment(app, transportSeq);
  const frames = segments.map((data) => encodeFrame({ dir: true, prm: true, fcb: false, fcvDfc: false, func: 4, dest: 10, src: 1, data }));
  return { bytes: Buffer.concat(frames), nextSeq };
}

test('connections over the connection cap are closed at once, sessions and handshakes counted together', async () => {
  const seen: Dnp3Refusal[] = [];
  const small = await startDnp3Server({
    port: 0, host: '127.0.0.1', limits: { ...LIMITS, handshakesPerAddress: 100, handshakeTimeoutMs: 120_000, connections: 3 },
    transport: { tls: { key: pem('outstation.test-key'), cert: pem('outstation.test'), ca: [pem('ca')] } },
    integrations: () => integrations,
    outstationsFor: (i) => [outstations.get(i.organizationId)!],
    onRefused: (reason) => seen.push(reason),
  });
  const held: Socket[] = [];
  try {
    const closed: boolean[] = [];
    for (let i = 0; i < 10; i++) {
      const s = tcpConnect({ host: '127.0.0.1', port: small.port, localAddress: '127.0.0.5' });
      const k = closed.push(false) - 1;
      s.on('error', () => {});
      s.on('close', () => { closed[k] = true; });
      held.push(s);
    }
    tried++;
    await waitFor('seven connections closed by the server', () => closed.filter(Boolean).length >= 7, { timeoutMs: 30_000, intervalMs: 100 });
    assert.is(closed.filter((c) => !c).length, 3, 'three kept: the cap');
    assert.ok(seen.filter((r) => r === 'busy').length >= 7, 'each reported busy');
    refused++;
  } finally {
    for (const s of held) s.destroy();
    await small.close();
  }
});

/** The application fragments of the complete single-segment frames in `bytes` (a partial frame at the end waits). */
function responses(bytes: Buffer): string[] {
  const out: string[] = [];
  for (let at = 0; at + 3 <= bytes.length;) {
    const size = frameSize(bytes[at + 2]! - 5);
    if (at + size > bytes.length) break;
    const frame = parseFrame(new Uint8Array(bytes.subarray(at, at + size)));
    out.push(toHex(frame.data.subarray(1))); // after the transport header
    at += size;
  }
  return out;
}

test(`a READ header flood (200 READs of 680 headers each) from an authenticated master: each answered IIN2.2 without objects, the other master served`, async () => {
  const requests = 200;
  let transportSeq = 0;
  const flood: Buffer[] = [];
  for (let i = 0; i < requests; i++) {
    const r = headerFloodRequest(i, transportSeq);
    transportSeq = r.nextSeq;
    flood.push(r.bytes);
  }
  tried++;
  const chunks: Buffer[] = [];
  const socket = connect({ host: '127.0.0.1', port: server.port, ca: pem('ca'), servername: 'outstation.test', cert: pem('scada.north.example'), key: pem('scada.north.example-key') });
  socket.on('error', () => {});
  socket.on('data', (c: Buffer) => chunks.push(c));
  await new Promise<void>((resolve) => socket.on('secureConnect', () => resolve()));
  socket.write(Buffer.concat(flood));
  await southServed('during a READ header flood');
  const answers = () => responses(Buffer.concat(chunks));
  await waitFor('every flood READ answered', () => answers().length >= requests, { timeoutMs: 60_000, intervalMs: 100 });
  socket.destroy();
  for (const a of answers()) {
    const octets = hex(a);
    assert.is(octets[1], 0x81, 'a RESPONSE');
    const iin = (octets[2]! << 8) | octets[3]!;
    assert.ok(iin & Iin.PARAMETER_ERROR, `IIN2.2 set: ${a}`);
    assert.is(octets.length, 4, `no objects after the IIN (${MAX_READ_HEADERS} headers at most): ${a}`);
  }
  refused++;
  await southServed('after a READ header flood');
});

test.run();
