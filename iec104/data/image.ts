// The station's process image: the newest value of every point per common address, and the rule that makes
// an event (a spontaneous transmission): a binary's state or quality changes, an analog moves by more than its
// deadband or its quality changes. A point's first value is no event at start-up (there was nothing to change
// from), but it is once the station is settled: a device's first check-in after that is news to the master.
import type { StationPoint } from './point-map.js';

export class ProcessImage {
  private readonly byCa = new Map<number, Map<number, StationPoint>>();

  /** Common addresses in use, ascending. */
  commonAddresses(): number[] {
    return [...this.byCa.keys()].sort((a, b) => a - b);
  }

  /** Adds a common address with no points yet (a bank with no devices still answers). */
  ensure(ca: number): void {
    if (!this.byCa.has(ca)) this.byCa.set(ca, new Map());
  }

  has(ca: number): boolean {
    return this.byCa.has(ca);
  }

  points(ca: number): StationPoint[] {
    return [...(this.byCa.get(ca)?.values() ?? [])].sort((a, b) => a.ioa - b.ioa);
  }

  point(ca: number, ioa: number): StationPoint | undefined {
    return this.byCa.get(ca)?.get(ioa);
  }

  /** Stores the value; true when it is an event. `firstIsEvent`: a point's first value is one (after start-up). */
  update(ca: number, p: StationPoint, deadband = 0, firstIsEvent = false): boolean {
    this.ensure(ca);
    const points = this.byCa.get(ca)!;
    const old = points.get(p.ioa);
    points.set(p.ioa, p);
    if (!old) return firstIsEvent;
    if (old.quality !== p.quality) return true;
    return p.kind === 'binary' ? old.value !== p.value : Math.abs(p.value - old.value) > deadband;
  }
}
