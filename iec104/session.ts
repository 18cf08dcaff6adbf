// One master connection: the stream parser, the station's state machine and its timers over a socket. The
// station decides everything (station/station.ts); this file only moves bytes and time.
import type { Socket } from 'node:net';
import { ApduParser } from './apci/apci.js';
import { Iec104Error } from './errors.js';
import type { RefusalReason } from './diagnostics/reasons.js';
import type { EventSink, Iec104Outstation } from './outstation.js';
import { DEFAULT_TIMERS, Station, type StationOutput, type StationTimers } from './station/station.js';

export interface Iec104SessionOptions {
  timers?: StationTimers;
  /** How often the timers are checked (default 250 ms). */
  tickMs?: number;
  clock?: () => number;
  onRefusal?: (reason: RefusalReason) => void;
  onClockSync?: (ms: number) => void;
  onClose?: (reason: string) => void;
}

export class Iec104Session implements EventSink {
  readonly station: Station;
  private readonly parser = new ApduParser();
  private readonly timer: NodeJS.Timeout;
  private readonly clock: () => number;
  private closed = false;

  constructor(private readonly socket: Socket, private readonly outstation: Iec104Outstation, private readonly opts: Iec104SessionOptions = {}) {
    this.clock = opts.clock ?? Date.now;
    this.station = new Station(outstation.image, opts.timers ?? DEFAULT_TIMERS, this.clock());
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('close', () => this.close('connection closed'));
    socket.on('error', () => this.close('connection error'));
    this.timer = setInterval(() => this.apply(this.station.tick(this.clock())), opts.tickMs ?? 250);
    outstation.attach(this);
  }

  enqueue(asdus: readonly Uint8Array[]): void {
    if (!this.closed) this.apply(this.station.enqueue(asdus, this.clock()));
  }

  close(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.outstation.detach(this, this.station.remaining());
    this.socket.destroy();
    this.opts.onClose?.(reason);
  }

  private receive(chunk: Buffer): void {
    if (this.closed) return;
    let apdus;
    try {
      apdus = this.parser.push(chunk);
    } catch (e) {
      if (!(e instanceof Iec104Error)) throw e;
      this.opts.onRefusal?.('malformedApci');
      this.close(e.message);
      return;
    }
    for (const apdu of apdus) {
      if (this.closed) return;
      this.apply(this.station.handle(apdu, this.clock()));
    }
  }

  private apply(out: StationOutput): void {
    if (this.closed) return;
    for (const b of out.send) this.socket.write(b);
    for (const r of out.refusals) this.opts.onRefusal?.(r);
    if (out.clockSync !== undefined) this.opts.onClockSync?.(out.clockSync);
    if (out.close) {
      this.opts.onRefusal?.(out.close);
      this.close(out.close);
    }
  }
}
