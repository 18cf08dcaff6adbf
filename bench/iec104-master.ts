// A controlling station (104 master) for the benches, in the bench process over mutual TLS: STARTDT, station
// interrogation to CA 0xFFFF timed to the last ACT_TERM, spontaneous single points watched by CA and IOA.
// It acknowledges every w I frames and, as clause 5.5 asks, within t2 of the oldest unacknowledged one, and
// answers TESTFR, so it stays connected through the latency part's quiet seconds. Used by bench/dnp3.bench.ts
// (beside the DNP3 master) and bench/iec104-gi.bench.ts (GI alone, no servers).
import { connect, type TLSSocket } from 'node:tls';
import { ApduParser, encodeApdu, seqNext, type Apdu } from '../iec104/apci/apci.js';
import { decodeAsdu } from '../iec104/asdu/codec.js';
import { Cot } from '../iec104/asdu/cot.js';
import { GLOBAL_CA } from '../iec104/asdu/header.js';
import { TypeId } from '../iec104/asdu/types.js';
import { DEFAULT_TIMERS } from '../iec104/station/station.js';

export interface Iec104MasterOptions {
  port: number;
  host?: string;
  /** PEM: the CA the station's certificate chains to, and the master's certificate and key. */
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
  servername: string;
}

/** A single point gone to 1 spontaneously, with the monotonic time (process.hrtime) its bytes arrived. */
export interface SinglePointOn { ca: number; ioa: number; t: bigint }

export interface Interrogation { ms: number; objects: number }

const C_IC_NA_1 = 100;

export class Iec104BenchMaster {
  private readonly parser = new ApduParser();
  private vr = 0;
  private vs = 0;
  private unacked = 0;
  private ackTimer: NodeJS.Timeout | undefined;
  private onFrame: (f: Apdu, t: bigint) => void = () => {};
  private waiters: { ca: number; ioa: number; resolve: (e: SinglePointOn) => void }[] = [];
  /** Single points gone to 1 that no one waited for yet (an event may beat its waiter). */
  private readonly early: SinglePointOn[] = [];
  private closed: string | undefined;

  private constructor(private readonly socket: TLSSocket) {
    socket.on('data', (c: Buffer) => this.receive(c, process.hrtime.bigint()));
    socket.on('close', () => { this.closed ??= 'connection closed'; clearTimeout(this.ackTimer); });
    socket.on('error', (e) => { this.closed = e.message; });
  }

  /** Connects over mutual TLS and starts data transfer. */
  static async connect(o: Iec104MasterOptions): Promise<Iec104BenchMaster> {
    const socket = connect({ host: o.host ?? '127.0.0.1', port: o.port, ca: o.ca, servername: o.servername, cert: o.cert, key: o.key });
    await new Promise<void>((resolve, reject) => { socket.once('secureConnect', resolve); socket.once('error', reject); });
    const master = new Iec104BenchMaster(socket);
    const started = master.next((f) => f.format === 'U' && f.fn === 'STARTDT_CON', 'STARTDT con');
    socket.write(encodeApdu({ format: 'U', fn: 'STARTDT_ACT' }));
    await started;
    return master;
  }

  /** Why the connection ended, if it did. */
  get closedReason(): string | undefined {
    return this.closed;
  }

  private receive(chunk: Buffer, t: bigint): void {
    for (const f of this.parser.push(chunk)) {
      if (f.format === 'I') {
        this.vr = seqNext(this.vr);
        if (++this.unacked >= DEFAULT_TIMERS.w) this.ack();
        else this.ackTimer ??= setTimeout(() => this.ack(), DEFAULT_TIMERS.t2Ms);
        if (f.asdu[0] === TypeId.M_SP_TB_1 && (f.asdu[2]! & 0x3f) === Cot.SPONTANEOUS) this.singlePoints(f.asdu, t);
      } else if (f.format === 'U' && f.fn === 'TESTFR_ACT') {
        this.socket.write(encodeApdu({ format: 'U', fn: 'TESTFR_CON' }));
      }
      this.onFrame(f, t);
    }
  }

  private ack(): void {
    clearTimeout(this.ackTimer);
    this.ackTimer = undefined;
    if (this.unacked === 0 || this.socket.destroyed) return;
    this.unacked = 0;
    this.socket.write(encodeApdu({ format: 'S', nr: this.vr }));
  }

  private singlePoints(asdu: Uint8Array, t: bigint): void {
    const a = decodeAsdu(asdu);
    for (const o of a.objects) {
      if (o.value !== 1) continue;
      const e = { ca: a.commonAddress, ioa: o.ioa, t };
      const w = this.waiters.find((x) => x.ca === e.ca && x.ioa === e.ioa);
      if (w) { this.waiters = this.waiters.filter((x) => x !== w); w.resolve(e); } else this.early.push(e);
    }
  }

  /** The next frame matching `match`; rejects when the connection ends first. */
  private next(match: (f: Apdu) => boolean, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const onClose = () => reject(new Error(`IEC 104 master: connection ended waiting for ${what} (${this.closed})`));
      this.socket.once('close', onClose);
      this.onFrame = (f) => { if (match(f)) { this.socket.off('close', onClose); this.onFrame = () => {}; resolve(); } };
    });
  }

  private sendAsdu(asdu: Uint8Array): void {
    this.socket.write(encodeApdu({ format: 'I', ns: this.vs, nr: this.vr, asdu }));
    this.vs = seqNext(this.vs);
    // An I frame acknowledges what it carries in N(R).
    this.unacked = 0;
    clearTimeout(this.ackTimer);
    this.ackTimer = undefined;
  }

  /**
   * Station interrogation (QOI 20) to CA 0xFFFF, timed from the write of the activation to the ACT_TERM of the
   * last of `banks` common addresses; `objects`: the information objects received in between.
   */
  async interrogate(banks: number): Promise<Interrogation> {
    let terms = 0;
    let objects = 0;
    const started = performance.now();
    const done = this.next((f) => {
      if (f.format !== 'I') return false;
      if (f.asdu[0] !== C_IC_NA_1) { objects += f.asdu[1]! & 0x7f; return false; }
      return (f.asdu[2]! & 0x3f) === Cot.ACTIVATION_TERM && ++terms === banks;
    }, 'the end of the interrogation');
    this.sendAsdu(Uint8Array.from([C_IC_NA_1, 0x01, Cot.ACTIVATION, 0, GLOBAL_CA & 0xff, GLOBAL_CA >> 8, 0, 0, 0, 20]));
    await done;
    return { ms: performance.now() - started, objects };
  }

  /** The next spontaneous M_SP_TB_1 with value 1 at `ca`/`ioa` (one already arrived counts), or undefined after `timeoutMs`. */
  singlePointOn(ca: number, ioa: number, timeoutMs: number): Promise<SinglePointOn | undefined> {
    const i = this.early.findIndex((e) => e.ca === ca && e.ioa === ioa);
    if (i >= 0) return Promise.resolve(this.early.splice(i, 1)[0]);
    return new Promise((resolve) => {
      const waiter = { ca, ioa, resolve: (e: SinglePointOn) => { clearTimeout(timer); resolve(e); } };
      const timer = setTimeout(() => { this.waiters = this.waiters.filter((x) => x !== waiter); resolve(undefined); }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Forgets the events that arrived unasked (the warm-up's). */
  clearEarly(): void {
    this.early.length = 0;
  }

  close(): void {
    clearTimeout(this.ackTimer);
    this.socket.destroy();
  }
}
