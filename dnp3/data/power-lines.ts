// The DNP3 encoding of the per power line incident points (points/power-lines.ts, docs/decisions.md#feeder-incidents):
// a power line's slot holds its binaries at 8s+k and its analogs at 1+8s+k like a device's.
import { bankOf, localSlot } from '../../points/banks.js';
import { LINE_ANALOG, LINE_BINARY, powerLineLabel, powerLineSamples, type PowerLineSnapshot } from '../../points/power-lines.js';
import type { Outstation } from '../outstation/outstation.js';
import {
  ANALOG_CLASS, BINARY_CLASS, analogIndex, bankAddress, binaryIndex, dnp3Point, type PointMapRow, type PointUpdate,
} from './point-map.js';

export type { PowerLineSnapshot } from '../../points/power-lines.js';

export const LINE_BINARY_POINTS = LINE_BINARY.map((p) => ({ ...p, eventClass: BINARY_CLASS }));
export const LINE_ANALOG_POINTS = LINE_ANALOG.map((p) => ({ ...p, eventClass: ANALOG_CLASS }));

/** Point values of one power line, indexed within its bank. */
export function powerLinePoints(l: PowerLineSnapshot, nowMs: number, analogOnly = false): PointUpdate[] {
  return powerLineSamples(l, nowMs, analogOnly).map(dnp3Point);
}

/** Stores every power line's values in its bank's outstation; returns how many events that produced. */
export function applyPowerLines(banks: readonly Outstation[], lines: readonly PowerLineSnapshot[], nowMs: number, analogOnly: boolean): number {
  let events = 0;
  for (const l of lines) {
    const o = banks[bankOf(l.slot)];
    if (!o) continue;
    // Section numbers are identifiers, not measurements: every change is an event.
    for (const p of LINE_ANALOG_POINTS) o.db.configure('analog', analogIndex(localSlot(l.slot), p.k), { eventClass: p.eventClass, deadband: p.deadband ?? 0 });
    for (const u of powerLinePoints(l, nowMs, analogOnly)) if (o.update(u.type, u.index, u.value)) events++;
  }
  return events;
}

/** The point map rows of the power lines (sorted with the devices' rows by the caller). */
export function powerLinePointRows(lines: readonly Pick<PowerLineSnapshot, 'powerLineId' | 'name' | 'slot'>[], opts: { analogOnly?: boolean; outstationAddress?: number } = {}): PointMapRow[] {
  const base = opts.outstationAddress ?? 10;
  return lines.flatMap((l) => {
    const where = { bank: bankOf(l.slot), outstationAddress: bankAddress(base, bankOf(l.slot)), slot: l.slot, imei: null, deviceName: powerLineLabel(l) };
    const local = localSlot(l.slot);
    return [
      ...(opts.analogOnly ? [] : LINE_BINARY_POINTS.map((p): PointMapRow => ({ ...where, type: 'binary', index: binaryIndex(local, p.k), point: `${p.name} on ${where.deviceName}`, eventClass: p.eventClass, deadband: null, unit: null, staticVariation: 'g1v2', eventVariation: 'g2v2' }))),
      ...LINE_ANALOG_POINTS.map((p): PointMapRow => ({ ...where, type: 'analog', index: analogIndex(local, p.k), point: `${p.name} on ${where.deviceName}`, eventClass: p.eventClass, deadband: 0, unit: null, staticVariation: 'g30v5', eventVariation: 'g32v7' })),
    ];
  });
}
