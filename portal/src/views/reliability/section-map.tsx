// The sections of a line on a map, each at its upstream indicator, coloured by its incidents in the period
// (darker: more). Reuses the map view's offline base layer (map/offline-base-layer.ts) and canvas guards.
// Sections whose upstream indicator is outside the caller's reach have no position and are not drawn.
import L from 'leaflet';
import 'leaflet/dist/leaflet.css';
import { useEffect, useRef } from 'preact/hooks';
import '../../map/canvas-redraw-guard';
import '../../map/zoom-end-guard';
import { OfflineBaseLayer } from '../../map/offline-base-layer';
import { textContent } from '../../map/text-content';
import type { ReliabilitySection } from './types';

/** Count bands and their colours, lightest first; the legend says the same. */
export const COUNT_BANDS: readonly [number, string][] = [[1, '#fdd49e'], [2, '#fc8d59'], [4, '#d7301f'], [8, '#7f0000']];
export const colourOf = (n: number): string => COUNT_BANDS.reduce((c, [min, colour]) => (n >= min ? colour : c), COUNT_BANDS[0]![1]);

export function SectionMap({ sections }: { sections: readonly ReliabilitySection[] }) {
  const el = useRef<HTMLDivElement | null>(null);
  const placed = sections.filter((s) => s.Lat !== null && s.Long !== null);
  useEffect(() => {
    if (!el.current) return;
    const map = L.map(el.current, { preferCanvas: true, attributionControl: false }).setView([20, 0], 2);
    const base = new OfflineBaseLayer(map, () => {});
    void base.load();
    const group = L.featureGroup().addTo(map);
    for (const s of placed) {
      L.circleMarker([s.Lat!, s.Long!], { radius: 7 + Math.min(s.incidents, 10), color: '#333', weight: 1, fillColor: colourOf(s.incidents), fillOpacity: 0.9 })
        .bindTooltip(textContent(`${s.label}: ${s.incidents} incident${s.incidents === 1 ? '' : 's'}`))
        .addTo(group);
    }
    if (placed.length > 0) map.fitBounds(group.getBounds().pad(0.5), { maxZoom: 14 });
    el.current.setAttribute('data-sections', String(placed.length));
    return () => { base.remove(); map.remove(); };
  }, [JSON.stringify(placed.map((s) => [s.imei, s.incidents]))]);
  return (
    <figure class="reliability-map">
      <div ref={el} data-testid="reliability-map" style={{ height: '320px' }} role="img" aria-label="Sections of the line coloured by incidents in the period" />
      <figcaption class="muted small">
        Each circle is a section at its upstream indicator; colour by incidents in the period:{' '}
        {COUNT_BANDS.map(([min, colour], i) => <span key={min} class="legend-swatch"><span style={{ background: colour, display: 'inline-block', width: '0.8em', height: '0.8em' }} /> {min}{COUNT_BANDS[i + 1] ? `–${COUNT_BANDS[i + 1]![0] - 1}` : '+'} </span>)}
      </figcaption>
    </figure>
  );
}
