// The session over real sockets (plain TCP on loopback): silent masters time out, garbage does not kill the
// session, many masters at once are each answered.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, connect } from 'node:net';
import type { Server, Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { OutstationSession } from '../../../dnp3/outstation/session.js';
import { Outstation } from '../../../dnp3/outstation/outstation.js';
import { hex, toHex, prng, randomBytes } from '../helpers/hex.js';

const reasons: string[] = [];
let server: Server;
let port = 0;

test.before(async () => {
  server = createServer((socket) => {
    const o = new Outstation({ unsolicited: false });
    o.definePoints('analog', 1, { eventClass: 0 });
    new OutstationSession(socket, { link: { address: 10, masterAddress: 1 } }, o, { idleTimeoutMs: 300, tickMs: 20, onClose: (r) => reasons.push(r) });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
});

test.after(() => new Promise<void>((r) => server.close(() => r())));

function open(): Promise<Socket> {
  return new Promise((resolve) => { const s = connect(port, '127.0.0.1', () => resolve(s)); });
}

function ask(s: Socket, bytes: Uint8Array, expect: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => reject(new Error(`timeout, got ${toHex(buf)}`)), 2000);
    const onData = (c: Buffer) => {
      buf = Buffer.concat([buf, c]);
      if (buf.length >= expect) { clearTimeout(timer); s.off('data', onData); resolve(toHex(buf.subarray(0, expect))); }
    };
    s.on('data', onData);
    s.write(bytes);
  });
}

test('a silent master is disconnected after the idle timeout', async () => {
  const s = await open();
  const closed = await new Promise<number>((resolve) => { const t0 = Date.now(); s.on('close', () => resolve(Date.now() - t0)); });
  // Not before the idle timeout; how long after it depends on the machine's load, not on the rule.
  assert.ok(closed >= 250, `closed after ${closed} ms`);
  assert.ok(reasons.includes('idle timeout'));
});

test('random garbage between requests does not stop the session answering', async () => {
  const s = await open();
  const rand = prng(11);
  for (let i = 0; i < 20; i++) s.write(randomBytes(rand, 100));
  const reply = await ask(s, hex('05 64 05 C9 0A 00 01 00 FE DA'), 10);
  assert.is(reply, '05 64 05 0B 01 00 0A 00 6D ED');
  s.destroy();
});

test('100 masters at once each get their own answer', async () => {
  const sockets = await Promise.all(Array.from({ length: 100 }, open));
  const replies = await Promise.all(sockets.map((s) => ask(s, hex('05 64 0B C4 0A 00 01 00 AC D1 C0 C0 01 3C 01 06 FF 50'), 10)));
  assert.ok(replies.every((r) => r.startsWith('05 64')));
  for (const s of sockets) s.destroy();
});

test('a master that stops reading is dropped once too much is queued for it', async () => {
  // A socket whose writes never complete: what the session writes stays queued (writableLength grows).
  const stuck = new Duplex({ read() {}, write(_chunk, _enc, _cb) { /* never completes */ } });
  const closed: string[] = [];
  const o = new Outstation({ unsolicited: false });
  o.definePoints('analog', 200, { eventClass: 0 });
  new OutstationSession(stuck, { link: { address: 10, masterAddress: 1 } }, o, { maxQueuedOctets: 4096, tickMs: 1000, onClose: (r) => closed.push(r) });
  const read = hex('05 64 0B C4 0A 00 01 00 AC D1 C0 C0 01 3C 01 06 FF 50');
  for (let i = 0; i < 10 && closed.length === 0; i++) stuck.push(Buffer.from(read));
  await new Promise((r) => setImmediate(r));
  assert.equal(closed, ['master not reading']);
});

test.run();
