// Leaflet 1.9.4 ends an animated zoom from a 250 ms timer (Map._animateZoom) as well as on transitionend.
// When the map view unmounts during a zoom, map.remove() has deleted the map pane before that timer fires,
// and _onZoomTransitionEnd -> _move -> _getMapPanePos read `_leaflet_pos` of undefined: an uncaught error on
// leaving the map right after a zoom (test/integration/portal/incidents.test.ts leaves mid-zoom 20 times).
// A removed map has no zoom to finish: skip it. Imported once, by the map view.
import L from 'leaflet';

interface MapInternals { _mapPane?: HTMLElement; _animatingZoom?: boolean; _onZoomTransitionEnd(): void }

const proto = L.Map.prototype as unknown as MapInternals;
const end = proto._onZoomTransitionEnd;
proto._onZoomTransitionEnd = function (this: MapInternals) {
  if (!this._mapPane) { this._animatingZoom = false; return; }
  end.call(this);
};
