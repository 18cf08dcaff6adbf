// A controlling station written by the test, frame by frame, over real mutual TLS: what an attacker with a
// trusted certificate can send (test/security/iec104-*.test.ts). Frames received are parsed as they arrive.
import { readFileSync } from 'node:fs';
import { connect, type ConnectionOptions } from 'node:tls';
import { ApduParser, encodeApdu, type Apdu } from '../../iec104/apci/apci.js';

/** C_IC_NA_1, activation, CA 1, QOI 20 (station interrogation). */
export const GI = Uint8Array.from([100, 0x01, 6, 0, 1, 0, 0, 0, 0, 20]);
export const STARTDT: Apdu = { format: 'U', fn: 'STARTDT_ACT' };
export const gi = (ns: number): Uint8Array => encodeApdu({ format: 'I', ns, nr: 0, asdu: GI });

export interface RawMaster { frames: Apdu[]; closed: Promise<void>; isClosed: () => boolean; send(b: Uint8Array): void; end(): void; pause(): void; resume(): void; /** Octets this side has not yet handed to the kernel. */ unsent(): number }

/**
 * A TLS connection to `port` with `who`'s certificate (test/helpers/dev-certs.ts `master(org)`); `ack`: every I
 * frame acknowledged at once (an S frame after each chunk).
 */
export function openRawMaster(port: number, who: { ca: string; cert: string; key: string }, ack = false): Promise<RawMaster> {
  return openRawMasterWith({ port, ca: readFileSync(who.ca), cert: readFileSync(who.cert), key: readFileSync(who.key) }, ack);
}

/** The same with any TLS options: a chain of the test's making (test/helpers/forged-chain.ts), another CA. */
export function openRawMasterWith(tls: ConnectionOptions, ack = false): Promise<RawMaster> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', servername: 'outstation.test', ...tls });
    const parser = new ApduParser();
    const frames: Apdu[] = [];
    let closed = false;
    const done = new Promise<void>((r) => socket.on('close', () => { closed = true; r(); }));
    socket.on('error', () => {});
    let received = 0;
    socket.on('data', (c: Buffer) => {
      const before = received;
      for (const raw of parser.push(c)) { frames.push(raw); if (raw.format === 'I') received++; }
      if (ack && received > before) socket.write(encodeApdu({ format: 'S', nr: received % 32768 }));
    });
    socket.on('secureConnect', () => resolve({
      frames, closed: done, isClosed: () => closed, send: (b) => socket.write(b), end: () => socket.destroy(), pause: () => socket.pause(), resume: () => socket.resume(), unsent: () => socket.writableLength,
    }));
    socket.on('close', () => reject(new Error('closed before the handshake finished')));
  });
}

/** Waits (generously: the machine is shared) until `pred` holds. */
export async function until(pred: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`no ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const iFrames = (c: RawMaster): Extract<Apdu, { format: 'I' }>[] => c.frames.filter((f): f is Extract<Apdu, { format: 'I' }> => f.format === 'I');
/** An interrogation command or its confirmation/termination with this cause and P/N. */
export const isGi = (f: Apdu, cause: number, negative = false): boolean => f.format === 'I' && f.asdu[0] === 100 && (f.asdu[2]! & 0x3f) === cause && ((f.asdu[2]! & 0x40) !== 0) === negative;

/** The master starts data transfer (STARTDT act, then con). */
export async function startDataTransfer(c: RawMaster): Promise<void> {
  c.send(encodeApdu(STARTDT));
  await until(() => c.frames.some((f) => f.format === 'U' && f.fn === 'STARTDT_CON'), 'STARTDT con');
}

/** A master starts data transfer and gets its GI confirmed and terminated, measured values in it: the station serves it. */
export async function servedGi(open: () => Promise<RawMaster>, when: string): Promise<void> {
  const c = await open();
  try {
    await startDataTransfer(c);
    c.send(gi(0));
    await until(() => c.frames.some((f) => isGi(f, 10)), `GI terminated ${when}`, 60_000);
    if (!iFrames(c).some((f) => f.asdu[0] === 13)) throw new Error(`no measured values answered ${when}`);
  } finally {
    c.end();
  }
}
