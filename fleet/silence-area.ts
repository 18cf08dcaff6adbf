// Silent devices that went quiet together in one area (silent-device triage, docs/decisions.md#silent-device-triage):
// the carrier's footprint. Two silent devices are linked when they lie within CLUSTER_RADIUS_KM of each other
// (great-circle distance between their registered Lat/Long) and their last check-ins are within CLUSTER_WINDOW_MS;
// an area group is everything linked, directly or through others. A device without coordinates links to none.

/** Devices this close (km) are in one area: about one cell site's reach in open country. */
export const CLUSTER_RADIUS_KM = 5;
/** Last check-ins this close (ms) are "within the same hour". */
export const CLUSTER_WINDOW_MS = 3_600_000;

export interface Placed {
  imei: string;
  lat: number | null;
  long: number | null;
  /** The last check-in (ms). */
  lastMs: number;
}

const EARTH_KM = 6371;
const rad = (deg: number) => (deg * Math.PI) / 180;

/** Great-circle distance in km (haversine). */
export function distanceKm(a: { lat: number; long: number }, b: { lat: number; long: number }): number {
  const dLat = rad(b.lat - a.lat), dLong = rad(b.long - a.long);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLong / 2) ** 2;
  return 2 * EARTH_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * The area groups of a set of silent devices: each a list of IMEIs (ascending), every device in exactly one
 * group (a device linked to none is a group of one). Devices are compared only with those silent within the
 * window, in time order, so a large fleet is not compared pair by pair.
 */
export function areaGroups(devices: readonly Placed[]): string[][] {
  const byTime = [...devices].sort((a, b) => a.lastMs - b.lastMs);
  const parent = byTime.map((_, i) => i);
  const root = (i: number): number => (parent[i] === i ? i : (parent[i] = root(parent[i]!)));
  for (let i = 0; i < byTime.length; i++) {
    const a = byTime[i]!;
    if (a.lat === null || a.long === null) continue;
    for (let j = i + 1; j < byTime.length && byTime[j]!.lastMs - a.lastMs <= CLUSTER_WINDOW_MS; j++) {
      const b = byTime[j]!;
      if (b.lat === null || b.long === null) continue;
      if (distanceKm({ lat: a.lat, long: a.long }, { lat: b.lat, long: b.long }) <= CLUSTER_RADIUS_KM) parent[root(j)] = root(i);
    }
  }
  const groups = new Map<number, string[]>();
  byTime.forEach((d, i) => groups.set(root(i), [...(groups.get(root(i)) ?? []), d.imei]));
  return [...groups.values()].map((g) => g.sort()).sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
}
