// The map's base layer when no tile URL is set (control rooms often have no internet): land and country
// borders of the world (world-atlas, Natural Earth 1:110m), US state borders and, from zoom 7, county
// borders (us-atlas, Census 1:10m), drawn on their own canvas under the feeders and devices. The boundary
// files ship inside the portal build as hashed assets (npm packages, no network at run time) and load after
// the devices are painted, so the first paint does not wait for them. Not interactive: it only orients.
import L from 'leaflet';
import { feature, mesh } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import worldUrl from 'world-atlas/countries-110m.json?url';
import usUrl from 'us-atlas/counties-10m.json?url';

export const COUNTY_MIN_ZOOM = 7;

const LAND = { stroke: false, fill: true, fillColor: '#f4f1ea', fillOpacity: 1 };
const COUNTRY = { color: '#8a8f98', weight: 1, fill: false };
const STATE = { color: '#9aa1ab', weight: 1, fill: false };
const COUNTY = { color: '#c3c8cf', weight: 0.6, fill: false };

async function topology(url: string): Promise<Topology> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return (await res.json()) as Topology;
}

export class OfflineBaseLayer {
  private readonly group = L.layerGroup();
  private counties: L.GeoJSON | null = null;
  private removed = false;
  /** The layers drawn so far, for tests: `land`, `countries`, `states`, `counties`. */
  readonly drawn: string[] = [];

  constructor(private readonly map: L.Map, private readonly onDrawn: (layers: readonly string[]) => void) {
    map.createPane('base').style.zIndex = '150';
    this.group.addTo(map);
  }

  async load(): Promise<void> {
    const renderer = L.canvas({ pane: 'base', padding: 0.2 });
    const geo = (data: Parameters<typeof L.geoJSON>[0], style: L.PathOptions) => L.geoJSON(data, { style, interactive: false, pane: 'base', renderer } as L.GeoJSONOptions);
    const [world, us] = await Promise.all([topology(worldUrl), topology(usUrl)]);
    if (this.removed) return;
    const countries = world.objects.countries as GeometryCollection;
    const states = us.objects.states as GeometryCollection;
    geo(feature(world, world.objects.land as GeometryCollection), LAND).addTo(this.group);
    geo(mesh(world, countries, (a, b) => a !== b), COUNTRY).addTo(this.group);
    geo(mesh(us, states, (a, b) => a !== b), STATE).addTo(this.group);
    this.counties = geo(mesh(us, us.objects.counties as GeometryCollection, (a, b) => a !== b && (a.id as string).slice(0, 2) === (b.id as string).slice(0, 2)), COUNTY);
    this.drawn.push('land', 'countries', 'states');
    this.map.on('zoomend', this.showCounties, this);
    this.showCounties();
  }

  /** County lines only where they help: thousands of them would clutter a country-wide view and slow panning. */
  private showCounties(): void {
    if (!this.counties || this.removed) return;
    const show = this.map.getZoom() >= COUNTY_MIN_ZOOM;
    if (show && !this.group.hasLayer(this.counties)) this.group.addLayer(this.counties);
    if (!show && this.group.hasLayer(this.counties)) this.group.removeLayer(this.counties);
    if (show && !this.drawn.includes('counties')) this.drawn.push('counties');
    this.onDrawn(this.drawn);
  }

  remove(): void {
    this.removed = true;
    this.map.off('zoomend', this.showCounties, this);
    this.group.remove();
  }
}
