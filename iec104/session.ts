// One master connection: the stream parser, the station's state machine and its timers over a socket. The
// station decides everything (station/station.ts); this file only moves bytes and time. The connection takes
// over the outstation's events when it starts data transfer (STARTDT) and hands back the events it had not delivered
// when it stops (STOPDT con), closes, or another connection of its redundancy group starts; its replies die with it.
// Bounded (docs/decisions.md#iec-104-bounded-sessions): past MAX_WRITE_QUEUE_BYTES waiting to be written, it stops
// reading (socket.pause, the rest of a chunk left unparsed) and the station builds no I frame until the queue drains.
import type { Socket } from 'node:net';
import { ApduParser } from './apci/apci.js';
import { Iec104Error } from './errors.js';
import type { RefusalReason } from './diagnostics/reasons.js';
import type { EventSink, Iec104Outstation } from './outstation.js';
import { DEFAULT_TIMERS, Station, type StationOutput, type StationTimers } from './station/station.js';

/** Octets waiting to be written above which the session stops reading and building I frames; it goes on below half. */
export const MAX_WRITE_QUEUE_BYTES = 64 * 1024;

export interface Iec104SessionOptions {
  timers?: StationTimers;
  /** How often the timers are checked (default 250 ms). */
  tickMs?: number;
  clock?: () => number;
  onRefusal?: (reason: RefusalReason) => void;
  onClockSync?: (ms: number) => void;
  onClose?: (reason: string) => void;
  /** The connection started (true) or stopped (false) delivering events: data transfer started, stopped or ended. */
  onActive?: (active: boolean) => void;
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
  private outboxBytes = 0;
  private writing = false;
  /** Reading stopped and I frames held until the write queue drains below half its bound. */
  private backedUp = false;
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

  /** Reading is paused because the master does not take what is written (its write queue is full). */
  get readingPaused(): boolean {
    return this.backedUp;
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
    if (this.active) { this.active = false; this.outstation.detach(this, this.station.drain()); this.opts.onActive?.(false); }
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
    this.outboxBytes += b.length;
    if (!this.writing) this.writeNext();
  }

  private writeNext(): void {
    const b = this.outbox.shift();
    if (!b || this.closed) { this.writing = false; return; }
    this.outboxBytes -= b.length;
    this.writing = true;
    this.opts.onTraffic?.('tx', b);
    this.socket.write(b, () => {
      if (this.backedUp && this.outboxBytes <= MAX_WRITE_QUEUE_BYTES / 2) this.release();
      this.writeNext();
    });
  }

  /** The master takes what is written again: build I frames, parse what was left, read on. */
  private release(): void {
    this.backedUp = false;
    this.apply(this.station.hold(false, this.clock()));
    this.parse();
    if (!this.backedUp && !this.closed) this.socket.resume();
  }

  private receive(chunk: Buffer): void {
    if (this.closed) return;
    this.opts.onTraffic?.('rx', chunk);
    this.parser.feed(chunk);
    this.parse();
  }

  /** Handles received APDUs one at a time until none is whole or the write queue is full. */
  private parse(): void {
    while (!this.closed && !this.backedUp) {
      let apdu;
      try {
        apdu = this.parser.next();
      } catch (e) {
        if (!(e instanceof Iec104Error)) throw e;
        this.opts.onRefusal?.('malformedApci');
        this.close(e.message);
        return;
      }
      if (!apdu) return;
      this.apply(this.station.handle(apdu, this.clock()));
    }
  }

  private apply(out: StationOutput): void {
    if (this.closed) return;
    for (const b of out.send) this.write(b);
    if (out.sentEvents) this.outstation.sent(out.sentEvents, this.clock());
    if (out.acked) this.outstation.acknowledged(out.acked, this.clock());
    for (const r of out.refusals) this.opts.onRefusal?.(r);
    if (out.clockSync !== undefined) this.opts.onClockSync?.(out.clockSync);
    if (out.close) {
      this.opts.onRefusal?.(out.close);
      this.close(out.close);
      return;
    }
    this.follow();
    // The master does not read what is written: stop reading and building frames until it does.
    if (!this.backedUp && this.outboxBytes > MAX_WRITE_QUEUE_BYTES) {
      this.backedUp = true;
      this.socket.pause();
      this.apply(this.station.hold(true, this.clock()));
    }
  }

  /** Takes over or hands back the outstation's events as the station starts or stops data transfer. */
  private follow(): void {
    if (this.station.started && !this.active) {
      this.active = true;
      this.outstation.attach(this);
      this.opts.onActive?.(true);
    } else if (!this.station.started && this.active) {
      this.active = false;
      this.outstation.detach(this, this.station.drain());
      this.opts.onActive?.(false);
    }
  }
}
