// Leaflet 1.9.4's canvas renderer queues its redraws on requestAnimationFrame. A redraw queued while the map
// view unmounts still ran after map.remove() had taken the canvas away, and threw "Cannot read properties of
// undefined (reading 'save')" on every exit from the map (the race of Leaflet issue #6030, which its
// cancel in _destroyContainer does not close for every path). A redraw without a canvas has nothing to
// draw: skip it. Imported once, by the map view.
import L from 'leaflet';

interface CanvasInternals { _ctx?: CanvasRenderingContext2D; _redraw(): void }

const proto = L.Canvas.prototype as unknown as CanvasInternals;
const redraw = proto._redraw;
proto._redraw = function (this: CanvasInternals) {
  if (this._ctx) redraw.call(this);
};
