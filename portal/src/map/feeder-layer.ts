// Draws each power line as its approximate route (feeder-trace.ts) under the device markers: dashed grey
// while its devices are healthy, solid in the fault colour when one of them reports a fault, so a faulted
// feeder stands out at any zoom, also where its devices are clustered.
import L from 'leaflet';
import { stateColour, stateRank } from '../fault-state';
import { feederTree } from './feeder-trace';
import type { MapPoint } from './device-layer';

export interface Feeder {
  id: string;
  name: string;
  devices: MapPoint[];
}

const HEALTHY = '#5f6b77';
const FAULT_RANK = stateRank('Fault');

export class FeederLayer {
  private readonly group = L.layerGroup();
  private readonly renderer: L.Canvas;
  /** Feeders drawn by the last setFeeders (for tests and the status line). */
  drawn = 0;

  constructor(map: L.Map, private readonly onFeeder: (id: string) => void) {
    // Its own pane under the markers' overlay pane (z-index 400), so devices stay clickable on top.
    map.createPane('feeders').style.zIndex = '350';
    this.renderer = L.canvas({ pane: 'feeders', padding: 0.2 });
    this.group.addTo(map);
  }

  setFeeders(feeders: readonly Feeder[]): void {
    this.group.clearLayers();
    this.drawn = 0;
    for (const f of feeders) {
      const segments = feederTree(f.devices).map(([a, b]) => [[f.devices[a]!.lat, f.devices[a]!.lng], [f.devices[b]!.lat, f.devices[b]!.lng]] as L.LatLngTuple[]);
      if (!segments.length) continue;
      const worst = f.devices.reduce((w, d) => (stateRank(d.state) > stateRank(w) ? d.state : w), 'None');
      const faulted = stateRank(worst) >= FAULT_RANK;
      const line = L.polyline(segments, {
        renderer: this.renderer, pane: 'feeders', interactive: true,
        color: faulted ? stateColour(worst) : HEALTHY, weight: faulted ? 4 : 2.5, opacity: 0.85, dashArray: faulted ? undefined : '6 5',
      });
      line.bindTooltip(`${f.name}: approximate route through its ${f.devices.length} devices${faulted ? `; ${worst}` : ''}`, { sticky: true });
      line.on('click', () => this.onFeeder(f.id));
      line.addTo(this.group);
      this.drawn++;
    }
  }
}
