// Draws the feeder routes (feeder-routes.ts) under the device markers: thin grey while healthy, thick in the
// fault colour when a device of a power line on it reports a fault, so a faulted feeder stands out at any
// zoom, also where its devices are clustered. Styles differ by width and colour, not by dashes, and are
// opaque: feeders along the same poles overlap, and overlapping dashes looked solid (the fault style) and a
// red line under a translucent grey one turned brown. The routes share the device layer's canvas (drawn behind the
// devices): Leaflet's canvas takes every mouse event over it, so a second canvas underneath never got a hover
// or a click; on one canvas the hit test finds devices first, then feeders. A thin line is a 2 px target, so
// each route is drawn twice: the visible line (not interactive) and a wide invisible one over it that takes
// the hover and the click (HOVER_WIDTH px).
import L from 'leaflet';
import { stateColour, stateRank } from '../fault-state';
import { feederRoutes, type Feeder, type FeederRoute } from './feeder-routes';
import { textContent } from './text-content';

export type { Feeder } from './feeder-routes';

const HEALTHY = '#5f6b77';
/** Width in pixels of a feeder's invisible hover and click target. */
export const HOVER_WIDTH = 16;
const RANKING = { rank: stateRank, faultRank: stateRank('Fault') };

function describe(route: FeederRoute): string {
  const lines = route.feeders.map((f) => `${f.name}: ${f.topology ? 'feeder topology of' : 'approximate route through'} its ${f.devices} devices${f.faulted ? `; ${f.worst}` : ''}`);
  return route.feeders.length > 1 ? `Shared by ${route.feeders.length} power lines. ${lines.join('. ')}` : lines[0]!;
}

export class FeederLayer {
  private readonly group = L.layerGroup();
  /** Power lines drawn by the last setFeeders (for tests and the status line). */
  drawn = 0;

  constructor(map: L.Map, private readonly renderer: L.Canvas, private readonly onFeeder: (id: string) => void) {
    this.group.addTo(map);
  }

  setFeeders(feeders: readonly Feeder[]): void {
    this.group.clearLayers();
    const routes = feederRoutes(feeders, RANKING);
    this.drawn = new Set(routes.flatMap((r) => r.feeders.map((f) => f.id))).size;
    // Healthy routes first, faulted on top; the whole layer behind the devices on the shared canvas.
    const lines = routes.map((route) => {
      const line = L.polyline(route.segments, {
        renderer: this.renderer, interactive: false,
        color: route.faulted ? stateColour(route.worst) : HEALTHY, weight: route.faulted ? 5 : 2, opacity: 1,
      });
      const target = L.polyline(route.segments, { renderer: this.renderer, interactive: true, weight: HOVER_WIDTH, opacity: 0 });
      target.bindTooltip(textContent(describe(route)), { sticky: true, className: 'feeder-tooltip' });
      target.on('click', () => this.onFeeder(route.feeders[0]!.id));
      line.addTo(this.group);
      target.addTo(this.group);
      return [line, target] as const;
    });
    for (const [line, target] of lines.reverse()) { target.bringToBack(); line.bringToBack(); }
  }
}
