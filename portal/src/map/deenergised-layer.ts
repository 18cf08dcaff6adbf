// Draws the possible de-energised sections (docs/decisions.md#silent-device-triage) over the feeders: a dotted ring
// round each silent line-powered indicator and a dotted line from the indicator still reporting above the section
// to its point, in a colour of its own: "maybe no power here", never mistaken for a faulted section (dashed purple).
import L from 'leaflet';
import { deenergisedText, type DeenergisedSection } from '../api/deenergised';
import { textContent } from './text-content';

export const DEENERGISED_COLOUR = '#d97706';

export class DeenergisedLayer {
  private readonly group = L.layerGroup();
  /** Sections drawn by the last setSections (tests read it from the map element). */
  drawn = 0;

  constructor(map: L.Map, private readonly renderer: L.Canvas) {
    this.group.addTo(map);
  }

  setSections(sections: readonly DeenergisedSection[]): void {
    this.group.clearLayers();
    this.drawn = 0;
    const at = (d: { Lat: number | null; Long: number | null } | null): [number, number] | null => (d && d.Lat !== null && d.Long !== null ? [d.Lat, d.Long] : null);
    for (const s of sections) {
      const rings = s.devices.map(at).filter((p): p is [number, number] => p !== null);
      if (rings.length === 0) continue;
      const style = { renderer: this.renderer, color: DEENERGISED_COLOUR, weight: 4, opacity: 0.9, dashArray: '2 8', interactive: true };
      const tip = deenergisedText(s);
      const point = at(s.point), upstream = at(s.upstream);
      const shapes: L.Path[] = rings.map((p) => L.circleMarker(p, { ...style, radius: 14, fill: false }));
      if (point && upstream) shapes.push(L.polyline([upstream, point], style));
      for (const shape of shapes) shape.bindTooltip(textContent(tip), { sticky: true, className: 'feeder-tooltip' }).addTo(this.group);
      this.drawn++;
    }
  }
}
