// Enrichment (spec 6.1 step 3, 2.2): the device record keeps a copy of the device's name and location as
// they were at check-in time, so renaming or moving the device later does not rewrite history.
import type { DeviceSnapshot } from './checkin.js';

export interface Enrichment {
  CurrentName: string | null;
  CurrentLat: number | null;
  CurrentLong: number | null;
}

/**
 * CurrentName/CurrentLat/CurrentLong from the device information snapshot. An unregistered device (null)
 * gets nulls: its check-in is stored anyway and becomes visible once registered (docs/decisions.md#unknown-device).
 */
export function enrich(device: DeviceSnapshot | null): Enrichment {
  if (device === null) return { CurrentName: null, CurrentLat: null, CurrentLong: null };
  return { CurrentName: device.Real_Name, CurrentLat: device.Lat, CurrentLong: device.Long };
}
