// One master connection: the stream parser, the station's state machine and its timers over a socket. The
// station decides everything (station/station.ts); this file only moves bytes and time. The connection takes
// over the outstation's events when it starts data transfer (STARTDT) and hands back what it had not delivered
// when it stops (STOPDT con), closes, or another connection of its redundancy group starts.
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
  /** Every chunk received and APDU sent (captures for tshark, traces). */
  onTraffic?: (direction: 'rx' | 'tx', bytes: Uint8Array) => void;
}

export class Iec104Session implements EventSink {
  readonly station: Station;
  private readonly parser = new ApduParser();
  private readonly timer: NodeJS.Timeout;
  private readonly clock: () => number;
  private closed = false;
  private readonly outbox: Uint8Array[] = [];
  private writing = false;
  /** This connection is the one its outstation delivers events to. */
  private active = false;

  constructor(private readonly socket: Socket, private readonly outstation: Iec104Outstation, private readonly opts: Iec104SessionOptions = {}) {
    this.clock = opts.clock ?? Date.now;
    this.station = new Station(outstation.handlers, opts.timers ?? DEFAULT_TIMERS, this.clock());
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('close', () => this.close('connection closed'));
    socket.on('error', () => this.close('connection error'));
    this.timer = setInterval(() => this.apply(this.station.tick(this.clock())), opts.tickMs ?? 250);
  }

  /** Started and delivering events (the redundancy group's active connection). */
  get isActive(): boolean {
    return this.active;
  }

  enqueue(asdus: readonly Uint8Array[]): void {
    if (!this.closed) this.apply(this.station.enqueue(asdus, this.clock()));
  }

  displace(): void {
    this.close('another connection of the redundancy group started data transfer');
  }

  close(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    if (this.active) { this.active = false; this.outstation.detach(this, this.station.drain()); }
    this.socket.destroy();
    this.opts.onClose?.(reason);
  }

  /**
   * One APDU per TLS record: Node joins writes made in one tick into one record, and lib60870-based masters
   * read one APDU per socket wake-up, so the APDUs after the first would sit unread in their TLS buffer
   * until the next packet (docs/decisions.md#iec-104-outstation). The next write waits for the previous one.
   */
  private write(b: Uint8Array): void {
    this.outbox.push(b);
    if (!this.writing) this.writeNext();
  }

  private writeNext(): void {
    const b = this.outbox.shift();
    if (!b || this.closed) { this.writing = false; return; }
    this.writing = true;
    this.opts.onTraffic?.('tx', b);
    this.socket.write(b, () => this.writeNext());
  }

  private receive(chunk: Buffer): void {
    if (this.closed) return;
    this.opts.onTraffic?.('rx', chunk);
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
    for (const b of out.send) this.write(b);
    if (out.acked) this.outstation.acknowledged(out.acked);
    for (const r of out.refusals) this.opts.onRefusal?.(r);
    if (out.clockSync !== undefined) this.opts.onClockSync?.(out.clockSync);
    if (out.close) {
      this.opts.onRefusal?.(out.close);
      this.close(out.close);
      return;
    }
    this.follow();
  }

  /** Takes over or hands back the outstation's events as the station starts or stops data transfer. */
  private follow(): void {
    if (this.station.started && !this.active) {
      this.active = true;
      this.outstation.attach(this);
    } else if (!this.station.started && this.active) {
      this.active = false;
      this.outstation.detach(this, this.station.drain());
    }
  }
}
