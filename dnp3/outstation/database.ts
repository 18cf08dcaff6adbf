// Current values of the outstation's points, and the rule that turns a change into an event. Plain data:
// the data feed calls update*, the outstation reads. Points start with RESTART set and not ONLINE, as masters
// expect of a point that holds no real value yet.
import { Flags } from '../objects/table.js';
import type { PointValue } from '../objects/codec.js';

export type EventClass = 0 | 1 | 2 | 3;
export type PointType = 'binary' | 'analog';

export interface PointConfig {
  /** 0 = no events. */
  eventClass: EventClass;
  /** Analog only: an event is produced when |new - last reported| > deadband. */
  deadband?: number;
}

/**
 * What caused an event, when a stored check-in did: shared by every event of that check-in (one object), so
 * its first send and first confirm are noticed once (docs/decisions.md#latency-metrics).
 */
export interface EventOrigin {
  /** When the check-in was stored (device_records.CreatedDate), ms. */
  storedAtMs: number;
  recordId: number;
  /** Set when a test fault sent the check-in. */
  testFault?: { id: number; phase: 'fault' | 'clear' };
  sentAtMs?: number;
  confirmedAtMs?: number;
}

export interface EventDraft {
  type: PointType;
  index: number;
  eventClass: 1 | 2 | 3;
  value: PointValue;
  origin?: EventOrigin;
}

interface Slot {
  value: PointValue;
  /** Value of the last event (analog deadband reference). */
  reported: PointValue;
  config: PointConfig;
}

const fresh = (): PointValue => ({ flags: Flags.RESTART, value: 0, time: 0 });

export class Database {
  private readonly points: Record<PointType, Slot[]> = { binary: [], analog: [] };

  /** Grows or shrinks a point type; new points get `config` and the restart value. */
  resize(type: PointType, count: number, config: PointConfig): void {
    const list = this.points[type];
    while (list.length < count) list.push({ value: fresh(), reported: fresh(), config });
    list.length = count;
  }

  configure(type: PointType, index: number, config: PointConfig): void {
    const slot = this.points[type][index];
    if (slot) slot.config = config;
  }

  count(type: PointType): number {
    return this.points[type].length;
  }

  get(type: PointType, index: number): PointValue | undefined {
    return this.points[type][index]?.value;
  }

  /**
   * Stores a value; returns the event to buffer, if the change is one. Binary: state or flags changed.
   * Analog: flags changed or the value moved past the deadband from the last reported value.
   */
  update(type: PointType, index: number, value: PointValue, origin?: EventOrigin): EventDraft | undefined {
    const slot = this.points[type][index];
    if (!slot) return undefined;
    const before = slot.value;
    slot.value = { ...value };
    if (slot.config.eventClass === 0) { slot.reported = { ...value }; return undefined; }
    const flagsChanged = before.flags !== value.flags;
    const changed = type === 'binary'
      ? flagsChanged || (before.value !== 0) !== (value.value !== 0)
      : flagsChanged || Math.abs(value.value - slot.reported.value) > (slot.config.deadband ?? 0);
    if (!changed) return undefined;
    slot.reported = { ...value };
    return { type, index, eventClass: slot.config.eventClass, value: { ...value }, ...(origin ? { origin } : {}) };
  }
}
