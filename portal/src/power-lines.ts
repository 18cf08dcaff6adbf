// The power lines a list of devices names, as [id, name] sorted by name: the choices of every power-line filter.
import type { MapDevice } from './api/types';

export function powerLinesOf(devices: readonly Pick<MapDevice, 'PowerLineID' | 'PowerLineName'>[]): [string, string][] {
  const byId = new Map<string, string>();
  for (const d of devices) if (d.PowerLineID) byId.set(d.PowerLineID, d.PowerLineName ?? d.PowerLineID);
  return [...byId].sort((a, b) => a[1].localeCompare(b[1]));
}
