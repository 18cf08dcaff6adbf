// Draws devices on a Leaflet map: supercluster groups them for the current zoom and viewport, clusters are
// small labelled markers (coloured by their worst state), single devices are circles on one canvas. Only
// what is in view is drawn, so 10,000 devices cost a few dozen shapes at a time. A device says its name and
// state on hover; from feeder zoom (LABEL_MIN_ZOOM) each one drawn carries its name as a label, and the
// devices of a chosen incident are labelled at any zoom (setLabelled).
import L from 'leaflet';
import Supercluster, { type ClusterProperties } from 'supercluster';
import { stateColour, stateRank } from '../fault-state';
import { textContent } from './text-content';

/** From this zoom (a feeder's few kilometres on screen) every device drawn is labelled with its name. */
export const LABEL_MIN_ZOOM = 15;

export interface MapPoint {
  id: string;
  lat: number;
  lng: number;
  state: string;
  name: string;
}

interface Props { id: string; state: string; name: string }
interface ClusterProps { worst: string; rank: number }

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export class DeviceLayer {
  private readonly group = L.layerGroup();
  /** The canvas of the devices, shared with the feeder routes drawn behind them (feeder-layer.ts). */
  readonly renderer = L.canvas({ padding: 0.2 });
  private index: Supercluster<Props, ClusterProps> | null = null;
  private labelled: ReadonlySet<string> = new Set();

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

  /** Devices labelled at every zoom (a chosen incident's bounding devices). */
  setLabelled(ids: ReadonlySet<string>): void {
    this.labelled = ids;
    this.draw();
  }

  setPoints(points: MapPoint[]): void {
    this.index = new Supercluster<Props, ClusterProps>({
      // extent 256 = Leaflet's tile size, so radius is in screen pixels.
      radius: 60, extent: 256, maxZoom: 16,
      map: (p) => ({ worst: p.state, rank: stateRank(p.state) }),
      reduce: (acc, p) => { if (p.rank > acc.rank) { acc.rank = p.rank; acc.worst = p.worst; } },
    });
    this.index.load(points.map((p) => ({ type: 'Feature', geometry: { type: 'Point', coordinates: [p.lng, p.lat] }, properties: { id: p.id, state: p.state, name: p.name } })));
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
    const labelAll = this.map.getZoom() >= LABEL_MIN_ZOOM;
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
        circle.bindTooltip(textContent(`${p.name}: ${p.state}`), { className: 'device-tooltip', direction: 'top', offset: [0, -8] });
        circle.addTo(this.group);
        if (labelAll || this.labelled.has(p.id)) this.label(lat, lng, p.name, this.labelled.has(p.id));
      }
      this.drawn++;
    }
  }

  /** A name beside a device: not interactive, so hover and clicks reach the device under it. */
  private label(lat: number, lng: number, name: string, chosen: boolean): void {
    const el = document.createElement('span');
    el.textContent = name;
    const icon = L.divIcon({ className: chosen ? 'device-label chosen' : 'device-label', html: el, iconSize: undefined, iconAnchor: [-10, 8] });
    L.marker([lat, lng], { icon, interactive: false, keyboard: false }).addTo(this.group);
  }
}
