// What the feeder layer draws: each power line's imported topology where it has one, else its approximate
// route (feeder-trace.ts), with the stretches
// that several power lines share drawn once. Feeders often leave a substation along the same poles; drawn one
// over another, two dashed grey lines look solid (the legend's fault style) and a red one under a grey one
// turns brown. A shared stretch is drawn once, in the worst style of the lines on it, named after all of
// them, and faulted routes are drawn last, on top.
// (Kept free of Leaflet and of the state colours, so it runs in the unit tests: the layer passes the ranking.)
import { feederTree } from './feeder-trace.js';

export interface Feeder {
  id: string;
  name: string;
  devices: { id: string; lat: number; lng: number; state: string }[];
  /** The imported topology, [device, upstream device] by id: drawn instead of the approximate trace when given. */
  links?: [string, string][];
}

/** How bad a state is (fault-state.ts stateRank); `faultRank` and above is a fault. */
export interface StateRanking { rank: (state: string) => number; faultRank: number }

export type LatLng = [number, number];

export interface FeederRoute {
  /** The power lines that run along every segment of this route, faulted ones first. */
  feeders: { id: string; name: string; devices: number; worst: string; faulted: boolean; topology: boolean }[];
  worst: string;
  faulted: boolean;
  segments: [LatLng, LatLng][];
}

/** The topology's links where the feeder has them (devices without a location drop out), else the approximate trace. */
function edgesOf(f: Feeder): [number, number][] {
  if (!f.links || f.links.length === 0) return feederTree(f.devices);
  const at = new Map(f.devices.map((d, i) => [d.id, i]));
  return f.links.flatMap(([a, b]) => (at.has(a) && at.has(b) ? [[at.get(a)!, at.get(b)!] as [number, number]] : []));
}

const key = (p: LatLng) => `${p[0].toFixed(6)},${p[1].toFixed(6)}`;

export function feederRoutes(feeders: readonly Feeder[], { rank, faultRank }: StateRanking): FeederRoute[] {
  const worstOf = (states: string[]) => states.reduce((w, s) => (rank(s) > rank(w) ? s : w), 'None');
  const info = new Map(feeders.map((f) => {
    const worst = worstOf(f.devices.map((d) => d.state));
    return [f.id, { id: f.id, name: f.name, devices: f.devices.length, worst, faulted: rank(worst) >= faultRank, topology: (f.links?.length ?? 0) > 0 }];
  }));
  // segment (either direction) -> the feeders on it
  const segments = new Map<string, { segment: [LatLng, LatLng]; ids: Set<string> }>();
  for (const f of feeders) {
    for (const [a, b] of edgesOf(f)) {
      const pa: LatLng = [f.devices[a]!.lat, f.devices[a]!.lng];
      const pb: LatLng = [f.devices[b]!.lat, f.devices[b]!.lng];
      if (key(pa) === key(pb)) continue;
      const k = [key(pa), key(pb)].sort().join('|');
      const entry = segments.get(k) ?? { segment: [pa, pb], ids: new Set<string>() };
      entry.ids.add(f.id);
      segments.set(k, entry);
    }
  }
  // One route per set of feeders sharing segments.
  const routes = new Map<string, FeederRoute>();
  for (const { segment, ids } of segments.values()) {
    const members = [...ids].map((id) => info.get(id)!).sort((x, y) => rank(y.worst) - rank(x.worst) || x.name.localeCompare(y.name));
    const k = members.map((m) => m.id).join('\u0000');
    let route = routes.get(k);
    if (!route) {
      routes.set(k, route = { feeders: members, worst: members[0]!.worst, faulted: members[0]!.faulted, segments: [] });
    }
    route.segments.push(segment);
  }
  return [...routes.values()].sort((x, y) => Number(x.faulted) - Number(y.faulted));
}
