// Draws the faulted sections of the active incidents over the feeders: a thick dashed line from the tripped
// indicator at the section's upstream end to each indicator bounding it below (or a ring round it when the
// section runs to the end of the line), with the incident in the tooltip. Dashed and in its own colour, so it
// reads as "the fault is here" over a feeder already drawn in the fault's colour. The incident chosen on the
// map (?incident=, closed ones too) is drawn wider, on top.
import L from 'leaflet';
import { sectionText, type Incident } from '../api/incidents';
import { textContent } from './text-content';

export const SECTION_COLOUR = '#7b2cbf';

export class IncidentLayer {
  private readonly group = L.layerGroup();
  /** Sections drawn by the last setIncidents (tests read it from the map element). */
  drawn = 0;

  constructor(map: L.Map, private readonly renderer: L.Canvas) {
    this.group.addTo(map);
  }

  setIncidents(incidents: readonly Incident[], at: (imei: string) => [number, number] | null, chosen: number | null = null): void {
    this.group.clearLayers();
    this.drawn = 0;
    // The chosen one last, so it is drawn on top.
    for (const i of [...incidents].sort((a, b) => Number(a.id === chosen) - Number(b.id === chosen))) {
      for (const s of i.sections) {
        const from = s.from.imei === null ? null : at(s.from.imei);
        if (!from) continue;
        const tip = `Incident ${i.id} (${i.kind}, ${i.status}) on ${i.powerLineName ?? i.powerLineId}: ${sectionText(s)}`;
        const ends = [...s.spans, ...s.to].map((e) => (e.imei === null ? null : at(e.imei))).filter((p): p is [number, number] => p !== null);
        const style = { renderer: this.renderer, color: SECTION_COLOUR, weight: i.id === chosen ? 11 : 7, opacity: 0.9, dashArray: '10 8', interactive: true };
        const shapes = ends.length > 0 ? ends.map((e) => L.polyline([from, e], style)) : [L.circleMarker(from, { ...style, radius: 16, fill: false })];
        for (const shape of shapes) shape.bindTooltip(textContent(tip), { sticky: true, className: 'feeder-tooltip' }).addTo(this.group);
        this.drawn++;
      }
    }
  }
}
