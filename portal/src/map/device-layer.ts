// Draws devices on a Leaflet map: supercluster groups them for the current zoom and viewport, clusters are
// small labelled markers (coloured by their worst state), single devices are circles on one canvas. Only
// what is in view is drawn, so 10,000 devices cost a few dozen shapes at a time.
import L from 'leaflet';
import Supercluster, { type ClusterProperties } from 'supercluster';
import { stateColour, stateRank } from '../fault-state';

export interface MapPoint {
  id: string;
  lat: number;
  lng: number;
  state: string;
}

interface Props { id: string; state: string }
interface ClusterProps { worst: string; rank: number }

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export class DeviceLayer {
  private readonly group = L.layerGroup();
  /** The canvas of the devices, shared with the feeder routes drawn behind them (feeder-layer.ts). */
  readonly renderer = L.canvas({ padding: 0.2 });
  private index: Supercluster<Props, ClusterProps> | null = null;

  constructor(private readonly map: L.Map, private readonly onDevice: (id: string, at: L.LatLng) => void) {
    this.group.addTo(map);
    map.on('moveend', this.draw, this);
  }

  /** Stops drawing before the map goes away (map.tsx), so no redraw runs on a removed canvas. */
  remove(): void {
    this.map.off('moveend', this.draw, this);
    this.index = null;
    this.group.remove();
  }

  setPoints(points: MapPoint[]): void {
    this.index = new Supercluster<Props, ClusterProps>({
      // extent 256 = Leaflet's tile size, so radius is in screen pixels.
      radius: 60, extent: 256, maxZoom: 16,
      map: (p) => ({ worst: p.state, rank: stateRank(p.state) }),
      reduce: (acc, p) => { if (p.rank > acc.rank) { acc.rank = p.rank; acc.worst = p.worst; } },
    });
    this.index.load(points.map((p) => ({ type: 'Feature', geometry: { type: 'Point', coordinates: [p.lng, p.lat] }, properties: { id: p.id, state: p.state } })));
    this.draw();
  }

  /** Shapes drawn by the last draw (for tests and the status line). */
  drawn = 0;

  draw(): void {
    this.group.clearLayers();
    this.drawn = 0;
    if (!this.index) return;
    const b = this.map.getBounds();
    const zoom = Math.round(this.map.getZoom());
    const features = this.index.getClusters([Math.max(-180, b.getWest()), Math.max(-85, b.getSouth()), Math.min(180, b.getEast()), Math.min(85, b.getNorth())], zoom);
    for (const f of features) {
      const [lng, lat] = f.geometry.coordinates as [number, number];
      const props = f.properties as (Props & { cluster?: false }) | (ClusterProperties & ClusterProps);
      if ('cluster' in props && props.cluster) {
        const n = props.point_count;
        const size = n < 10 ? 30 : n < 100 ? 36 : n < 1000 ? 44 : 52;
        const icon = L.divIcon({
          className: 'cluster', iconSize: [size, size],
          html: `<span style="background:${stateColour(props.worst)}" title="${n} devices; worst: ${escapeHtml(props.worst)}">${props.point_count_abbreviated}</span>`,
        });
        const marker = L.marker([lat, lng], { icon, keyboard: true, title: `${n} devices, worst state ${props.worst}; press Enter to zoom in` });
        const id = props.cluster_id;
        marker.on('click', () => {
          const z = Math.min(this.index!.getClusterExpansionZoom(id), 18);
          this.map.setView([lat, lng], z);
        });
        marker.addTo(this.group);
      } else {
        const p = props as Props;
        const circle = L.circleMarker([lat, lng], { renderer: this.renderer, radius: 7, weight: 2, color: '#ffffff', fillColor: stateColour(p.state), fillOpacity: 1 });
        circle.on('click', () => this.onDevice(p.id, L.latLng(lat, lng)));
        circle.addTo(this.group);
      }
      this.drawn++;
    }
  }
}
