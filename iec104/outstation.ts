// One integration's controlled station: its process image (every bank's common address) and the events not yet
// delivered. It outlives connections: events raised while no master is connected or has started data
// transfer wait here, in order, and what a dropped connection had not delivered is handed to the next one.
// An integration's connections are one redundancy group (IEC 60870-5-104 clause 10.3; docs/decisions.md#iec-104-redundancy):
// only the connection that has started data transfer receives events; the others stand by.
import { bankCount } from '../points/banks.js';
import type { PointSample } from '../points/device-points.js';
import { bankCommonAddress, HEARTBEAT_IOA, iec104Point, type StationPoint } from './data/point-map.js';
import { packEvents } from './station/application.js';
import { ProcessImage } from './station/image.js';

/** Where undelivered ASDUs go: the started connection's station, if any. */
export interface EventSink {
  enqueue(asdus: readonly Uint8Array[]): void;
  /** Another connection of the group started data transfer: stop, and hand back what was not delivered. */
  displace?(): void;
}

export class Iec104Outstation {
  readonly image = new ProcessImage();
  private backlog: Uint8Array[] = [];
  private sink: EventSink | undefined;

  constructor(readonly commonAddress = 1) {
    this.image.ensure(commonAddress);
  }

  /** Banks 0..bankCount(maxSlot)-1 answer at their common addresses, with or without points. */
  sizeBanks(maxSlot: number): void {
    for (let b = 0; b < bankCount(maxSlot); b++) this.image.ensure(bankCommonAddress(this.commonAddress, b));
  }

  /** Stores samples; changes beyond `deadband(s)` become spontaneous events. Returns how many. */
  apply(samples: readonly PointSample[], deadband: (s: PointSample) => number): number {
    const events = new Map<number, StationPoint[]>();
    for (const s of samples) {
      const { ca, point } = iec104Point(s, this.commonAddress);
      if (this.image.update(ca, point, deadband(s))) events.set(ca, [...(events.get(ca) ?? []), point]);
    }
    let n = 0;
    for (const [ca, points] of events) { this.deliver(packEvents(points, ca)); n += points.length; }
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

  private deliver(asdus: Uint8Array[]): void {
    if (this.sink) this.sink.enqueue(asdus);
    else this.backlog.push(...asdus);
  }
}
