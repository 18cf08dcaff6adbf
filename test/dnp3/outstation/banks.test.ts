// Banks (multi-drop): one connection, one link parser, one logical outstation per bank at consecutive link
// addresses. A master reaching address 11 gets bank 1's points, address 10 bank 0's; other addresses get
// silence; broadcasts reach every bank; a bank created after the master connected is reachable at once.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, connect } from 'node:net';
import type { Socket } from 'node:net';
import { Temporal } from 'temporal-polyfill';
import { MultiDropStack } from '../../../dnp3/outstation/stack.js';
import { OutstationSession } from '../../../dnp3/outstation/session.js';
import { Outstation } from '../../../dnp3/outstation/outstation.js';
import { encodeFrame, parseFrame } from '../../../dnp3/link/frame.js';
import { LinkParser } from '../../../dnp3/link/parser.js';
import { sizeBanks, applySnapshot } from '../../../dnp3/data/apply.js';
import { analogIndex, binaryIndex, localSlot } from '../../../dnp3/data/point-map.js';
import type { DeviceSnapshot } from '../../../dnp3/data/point-map.js';
import { checkFrameCrcs, hex, toHex } from '../helpers/hex.js';
/** OFFLINE_AFTER_HOURS 26 as the communication-lost ceiling, the default floor (domain/checkin-clock.ts). */
const CLOCK_26H = { floorS: 300, ceilingS: 26 * 3600 };

const NOW = Temporal.Instant.from('2026-11-20T14:05:00Z');
const T = NOW.epochMilliseconds - 60_000;
const float = (v: number) => { const b = Buffer.alloc(4); b.writeFloatLE(v); return toHex(b); };

/** One bank with a heartbeat of `heartbeat` and one binary point set at `index` (or none). */
function bank(heartbeat: number, binarySet?: number): Outstation {
  const o = new Outstation({ unsolicited: false });
  o.definePoints('analog', 1, { eventClass: 0 });
  o.definePoints('binary', 16, { eventClass: 0 });
  o.update('analog', 0, { flags: 1, value: heartbeat, time: T });
  if (binarySet !== undefined) o.update('binary', binarySet, { flags: 1, value: 1, time: T });
  return o;
}

let seq = 0;
/** One application fragment from master 1 to `dest` as UNCONFIRMED_USER_DATA. */
function request(dest: number, app: string): Uint8Array {
  const segment = Uint8Array.from([0xc0 | seq, ...hex(app)]);
  seq = (seq + 1) & 0x3f;
  return encodeFrame({ dir: true, prm: true, fcb: false, fcvDfc: false, func: 4, dest, src: 1, data: segment });
}
const CLASS0 = 'C0 01 3C 01 06';

/** Outstation frames grouped by source address, reassembled into application fragments (hex). */
function bySource(frames: Uint8Array[]): Map<number, string[]> {
  const out = new Map<number, string[]>();
  const partial = new Map<number, number[]>();
  for (const raw of frames) {
    assert.ok(checkFrameCrcs(raw), 'CRC');
    const f = parseFrame(raw);
    assert.is(f.dest, 1);
    assert.is(f.dir, false);
    if (f.func !== 4) { out.set(f.src, [...(out.get(f.src) ?? []), `link ${f.func}`]); continue; }
    const th = f.data[0]!;
    const cur = th & 0x40 ? [] : partial.get(f.src)!;
    cur.push(...f.data.subarray(1));
    partial.set(f.src, cur);
    if (th & 0x80) out.set(f.src, [...(out.get(f.src) ?? []), toHex(Uint8Array.from(cur))]);
  }
  return out;
}

test('address 10 answers with bank 0, address 11 with bank 1, each from its own address; 12 is silent', () => {
  const banks = [bank(111, 3), bank(222, 9)];
  const stack = new MultiDropStack({ link: { address: 10, masterAddress: 1 } }, () => banks);
  const r10 = bySource(stack.receive(request(10, CLASS0), NOW));
  assert.equal([...r10.keys()], [10]);
  assert.ok(r10.get(10)![0]!.includes(float(111)), 'bank 0 heartbeat');
  assert.not.ok(r10.get(10)![0]!.includes(float(222)));
  const r11 = bySource(stack.receive(request(11, CLASS0), NOW));
  assert.equal([...r11.keys()], [11]);
  assert.ok(r11.get(11)![0]!.includes(float(222)), 'bank 1 heartbeat');
  assert.not.ok(r11.get(11)![0]!.includes(float(111)));
  assert.equal(stack.receive(request(12, CLASS0), NOW), []);
  // Link services per address too: REQUEST_LINK_STATUS to 11 is answered LINK_STATUS from 11.
  const status = stack.receive(encodeFrame({ dir: true, prm: true, fcb: false, fcvDfc: false, func: 9, dest: 11, src: 1, data: new Uint8Array(0) }), NOW);
  assert.equal(status.map((f) => [parseFrame(f).src, parseFrame(f).func]), [[11, 11]]);
});

test('a frame split across reads is parsed once and reaches its bank', () => {
  const banks = [bank(1), bank(2)];
  const stack = new MultiDropStack({ link: { address: 10, masterAddress: 1 } }, () => banks);
  const frame = request(11, CLASS0);
  assert.equal(stack.receive(frame.subarray(0, 7), NOW), []);
  const r = bySource(stack.receive(frame.subarray(7), NOW));
  assert.equal([...r.keys()], [11]);
  assert.is(r.get(11)!.length, 1);
});

test('a broadcast is executed by every bank, answered by none; both report IIN1.0 next', () => {
  const banks = [bank(1), bank(2)];
  const stack = new MultiDropStack({ link: { address: 10, masterAddress: 1 } }, () => banks);
  // WRITE g80v1 index 7 = 0 (clear DEVICE_RESTART) to 0xFFFF.
  assert.equal(stack.receive(request(0xffff, 'C0 02 50 01 00 07 07 00'), NOW), []);
  for (const address of [10, 11]) {
    const fragment = bySource(stack.receive(request(address, CLASS0), NOW)).get(address)![0]!;
    const iin1 = parseInt(fragment.split(' ')[2]!, 16);
    assert.is(iin1 & 0x01, 0x01, `IIN1.0 broadcast at ${address}`);
    assert.is(iin1 & 0x80, 0, `restart cleared at ${address}`);
  }
});

test('a bank created after the master connected is reachable on the same connection', () => {
  const banks = [bank(1)];
  const stack = new MultiDropStack({ link: { address: 10, masterAddress: 1 } }, () => banks);
  assert.equal(stack.receive(request(11, CLASS0), NOW), []);
  banks.push(bank(77));
  const r = bySource(stack.receive(request(11, CLASS0), NOW));
  assert.ok(r.get(11)![0]!.includes(float(77)));
  assert.is(stack.bankStacks.length, 2);
});

test('point-map banks: device slot 8001 is read at address 11, local binary 8..15 / analog 9..16', () => {
  const banks: Outstation[] = [];
  sizeBanks(banks, 8001, false, () => new Outstation({ unsolicited: false }));
  const device: DeviceSnapshot = {
    imei: '358990000080019', slot: 8001, name: 'bank 1 device', date: T, actualOngoingFault: 4, batteryOrLine: 0, averageCurrent1m: 123.5,
    prefaultCurrent: 118, faultCurrent: 812, faultTime: T, peakCurrent24h: 210, averageCurrent1h: 121, batteryMcu: 3.5, temperature: 21,
  };
  applySnapshot(banks, device, T, CLOCK_26H, false);
  assert.is(localSlot(8001), 1);
  const stack = new MultiDropStack({ link: { address: 10, masterAddress: 1 } }, () => banks);
  // READ g30v5 (float) analog 9..9 (qualifier 00, 1-octet start/stop) at address 11.
  const index = analogIndex(1, 1);
  const read = `C0 01 1E 05 00 ${index.toString(16).padStart(2, '0')} ${index.toString(16).padStart(2, '0')}`;
  const a11 = bySource(stack.receive(request(11, read), NOW)).get(11)![0]!;
  assert.ok(a11.endsWith(`01 ${float(123.5)}`), a11);
  const a10 = bySource(stack.receive(request(10, read), NOW)).get(10)![0]!;
  assert.not.ok(a10.includes(float(123.5)), 'bank 0 holds no value for local slot 1');
  // READ g1v2 binary 9 (k=1 permanent fault) at 11: state set.
  const b = binaryIndex(1, 1);
  const b11 = bySource(stack.receive(request(11, `C0 01 01 02 00 ${b.toString(16).padStart(2, '0')} ${b.toString(16).padStart(2, '0')}`), NOW)).get(11)![0]!;
  assert.ok(b11.endsWith('81'), b11); // ONLINE | STATE
});

test('session over TCP: one socket, both addresses answered, each from its own address', async () => {
  const banks = [bank(111), bank(222)];
  const server = createServer((socket) => {
    new OutstationSession(socket, { link: { address: 10, masterAddress: 1 } }, () => banks, { tickMs: 20 });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const s = await new Promise<Socket>((resolve) => { const c = connect(port, '127.0.0.1', () => resolve(c)); });
  const parser = new LinkParser();
  const received: Uint8Array[] = [];
  s.on('data', (c: Buffer) => { for (const f of parser.push(new Uint8Array(c))) received.push(encodeFrame(f)); });
  const until = async (src: number) => {
    const t0 = Date.now();
    while (!received.some((f) => parseFrame(f).src === src && f.length > 10)) {
      if (Date.now() - t0 > 2000) throw new Error(`no answer from ${src}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  try {
    s.write(request(11, CLASS0));
    await until(11);
    s.write(request(10, CLASS0));
    await until(10);
    const r = bySource(received);
    assert.ok(r.get(11)![0]!.includes(float(222)));
    assert.ok(r.get(10)![0]!.includes(float(111)));
  } finally {
    s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  }
});

test.run();
