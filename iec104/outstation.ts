// One integration's controlled station: its process image (every bank's common address) and the events not yet
// delivered. It outlives connections: events raised while no master is connected or has started data
// transfer wait here, in order, and what a dropped connection had not delivered is handed to the next one.
// An integration's connections are one redundancy group (IEC 60870-5-104 clause 10.3; docs/decisions.md#iec-104-redundancy):
// only the connection that has started data transfer receives events; the others stand by.
import { bankCount } from '../points/banks.js';
import type { PointSample } from '../points/device-points.js';
import { bankCommonAddress, HEARTBEAT_IOA, iec104Point, type StationPoint } from './data/point-map.js';
import { imageHandlers, packEvents } from './data/asdus.js';
import { ProcessImage } from './data/image.js';
import type { StationHandlers } from './station/application.js';
import type { ImagePoint, Restored } from '../points/persistence.js';
import type { SnapshotOrigin } from '../points/feed.js';

/**
 * Told when events caused by a stored check-in (their origin) leave in I frames and when the master acknowledges
 * them, each origin once per call (iec104/event-timing.ts: test-fault timelines, as dnp3/event-timing.ts).
 */
export interface EventObserver {
  sent(origins: readonly SnapshotOrigin[], nowMs: number): void;
  confirmed(origins: readonly SnapshotOrigin[], nowMs: number): void;
}

/** Where events are kept across restarts (points/persistence.ts PointPersistence). */
export interface EventJournal {
  append(payloads: readonly Uint8Array[]): number[];
  saveImage(points: Iterable<ImagePoint>): void;
  acknowledged(seq: number): void;
}

/** Where undelivered ASDUs go: the started connection's station, if any. */
export interface EventSink {
  enqueue(asdus: readonly Uint8Array[]): void;
  /** Another connection of the group started data transfer: stop, and hand back what was not delivered. */
  displace?(): void;
}

export class Iec104Outstation {
  readonly image = new ProcessImage();
  /** What every connection's station asks about the points (interrogation, read): the image answers. */
  readonly handlers: StationHandlers = imageHandlers(this.image);
  private backlog: Uint8Array[] = [];
  private sink: EventSink | undefined;
  private journal: EventJournal | undefined;
  /** Journal sequence number of each event ASDU not yet acknowledged (the same Uint8Array travels through stations). */
  private readonly seqOf = new Map<Uint8Array, number>();
  /** The stored check-in each event ASDU not yet acknowledged came from, when known. */
  private readonly originOf = new Map<Uint8Array, SnapshotOrigin>();
  observer: EventObserver | undefined;
  /** Past start-up: a point's first value is an event (image.ts). */
  private settled = false;

  constructor(readonly commonAddress = 1) {
    this.image.ensure(commonAddress);
  }

  /** Banks 0..bankCount(maxSlot)-1 answer at their common addresses, with or without points. */
  sizeBanks(maxSlot: number): void {
    for (let b = 0; b < bankCount(maxSlot); b++) this.image.ensure(bankCommonAddress(this.commonAddress, b));
  }

  /**
   * Keeps events and the image across restarts: the restored image is the reference the next values are compared
   * with (a change stored while down is an event), and the restored events wait first, in order.
   */
  persist(journal: EventJournal, restored: Restored): void {
    this.journal = journal;
    // A restored image is the reference: whatever is new against it, a device's first values included, is news.
    if (restored.image.length > 0) this.settled = true;
    for (const p of restored.image) this.image.update(p.bank, { kind: p.kind, ioa: p.address, value: p.value, quality: p.quality, time: p.time }, Infinity);
    for (const e of restored.pending) this.seqOf.set(e.payload, e.seq);
    this.deliver(restored.pending.map((e) => e.payload), false);
  }

  /** The first load is done: from now on a point's first value is an event too. */
  settle(): void {
    this.settled = true;
  }

  /** Every point of the image (to seed the journal after a first load). */
  imagePoints(): ImagePoint[] {
    return this.image.commonAddresses().flatMap((ca) => this.image.points(ca).filter((p) => p.ioa !== HEARTBEAT_IOA)
      .map((p) => ({ bank: ca, address: p.ioa, kind: p.kind, value: p.value, quality: p.quality, time: p.time })));
  }

  /** These events left in I frames (a connection's station sent them). */
  sent(asdus: readonly Uint8Array[], nowMs: number): void {
    if (this.observer && this.originOf.size > 0) this.tell(asdus, nowMs, 'sent');
  }

  /** The master acknowledged these ASDUs: journaled events among them need not survive a restart. */
  acknowledged(asdus: readonly Uint8Array[], nowMs = Date.now()): void {
    let last = 0;
    for (const a of asdus) {
      const seq = this.seqOf.get(a);
      if (seq !== undefined) { last = Math.max(last, seq); this.seqOf.delete(a); }
    }
    if (last > 0) this.journal?.acknowledged(last);
    if (this.originOf.size > 0) {
      if (this.observer) this.tell(asdus, nowMs, 'confirmed');
      for (const a of asdus) this.originOf.delete(a);
    }
  }

  private tell(asdus: readonly Uint8Array[], nowMs: number, what: 'sent' | 'confirmed'): void {
    const origins = [...new Set(asdus.flatMap((a) => { const o = this.originOf.get(a); return o ? [o] : []; }))];
    if (origins.length) this.observer![what](origins, nowMs);
  }

  /** Stores samples; changes beyond `deadband(s)` become spontaneous events. Returns how many. `origin`: the stored check-in they came from. */
  apply(samples: readonly PointSample[], deadband: (s: PointSample) => number, origin?: SnapshotOrigin): number {
    const events = new Map<number, StationPoint[]>();
    for (const s of samples) {
      const { ca, point } = iec104Point(s, this.commonAddress);
      if (this.image.update(ca, point, deadband(s), this.settled)) events.set(ca, [...(events.get(ca) ?? []), point]);
    }
    let n = 0;
    for (const [ca, points] of events) {
      this.journal?.saveImage(points.map((p) => ({ bank: ca, address: p.ioa, kind: p.kind, value: p.value, quality: p.quality, time: p.time })));
      const asdus = packEvents(points, ca);
      if (origin) for (const a of asdus) this.originOf.set(a, origin);
      this.deliver(asdus);
      n += points.length;
    }
    return n;
  }

  /** The heartbeat (0..100, +1 a second) at IOA 100000 of every bank: no events, read by interrogation. */
  heartbeat(value: number, nowMs: number): void {
    for (const ca of this.image.commonAddresses()) this.image.update(ca, { kind: 'analog', ioa: HEARTBEAT_IOA, value, quality: 0, time: nowMs }, Infinity);
  }

  /**
   * A connection's station takes over delivery (it started data transfer); what waited goes to it first. The
   * connection that was active before is displaced: what it had not had acknowledged comes first.
   */
  attach(sink: EventSink): void {
    if (this.sink && this.sink !== sink) this.sink.displace?.();
    this.sink = sink;
    const waiting = this.backlog;
    this.backlog = [];
    if (waiting.length) sink.enqueue(waiting);
  }

  /** The connection ended: what it had not delivered waits for the next one, before anything newer. */
  detach(sink: EventSink, undelivered: readonly Uint8Array[]): void {
    if (this.sink !== sink) return;
    this.sink = undefined;
    this.backlog = [...undelivered, ...this.backlog];
  }

  /** The connection delivering events now, if any. */
  get active(): EventSink | undefined {
    return this.sink;
  }

  get pending(): number {
    return this.backlog.length;
  }

  private deliver(asdus: Uint8Array[], journal = true): void {
    if (journal && this.journal) this.journal.append(asdus).forEach((seq, i) => this.seqOf.set(asdus[i]!, seq));
    if (this.sink) this.sink.enqueue(asdus);
    else for (const a of asdus) this.backlog.push(a); // not a spread: a day's backlog exceeds V8's argument limit
  }
}
