// Map (map-data): every device in reach, coloured by state, clustered when zoomed out, named on hover and
// labelled at feeder zoom, with a popup of the API's fields. Base tiles come from the utility's tile server
// when one is configured (MAP_TILE_URL, map/tile-source.ts), else the offline base layer of boundaries
// shipped in the build (map/offline-base-layer.ts), which has no streets: at feeder zoom the map says so.
// Feeders are drawn along their imported topology (GET /api/feeder-topology), else as each power line's
// approximate route through its devices (map/feeder-trace.ts); the faulted sections of active incidents are
// drawn over them (map/incident-layer.ts), and possible de-energised sections apart (map/deenergised-layer.ts). `?device=<imei>` opens the map on one device, `?incident=<id>` on
// an incident's section (closed ones too), with its bounding devices named. What is read and derived:
// map-data.ts; the side panel: map-side.tsx; the Leaflet map and its layers: useLeafletMap below.
import L from 'leaflet';
import 'leaflet/dist/leaflet.css';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { sectionText, type Incident } from '../api/incidents';
import type { Session } from '../api/session';
import { EmptyState, ErrorState, StatusLine } from '../components/states';
import '../map/canvas-redraw-guard';
import '../map/zoom-end-guard';
import { DeviceLayer, LABEL_MIN_ZOOM } from '../map/device-layer';
import { fitControl } from '../map/fit-control';
import { FeederLayer } from '../map/feeder-layer';
import { DeenergisedLayer } from '../map/deenergised-layer';
import { IncidentLayer } from '../map/incident-layer';
import { OfflineBaseLayer } from '../map/offline-base-layer';
import { popupHtml, type Shown } from '../map/popup';
import { browserTileUrl, chosenTiles } from '../map/tile-source';
import { formatSecondTime } from '../time';
import { MapSide } from './map-side';
import { useMapData } from './map-data';

interface LiveMap { map: L.Map; layer: DeviceLayer; feeders: FeederLayer; incidents: IncidentLayer; dark: DeenergisedLayer; tiles: L.TileLayer | null; base: OfflineBaseLayer | null; fitted: boolean; painted: boolean }

/** Creates the Leaflet map and its layers once, and takes them down (layers first) when the view goes. */
function useLeafletMap(mapEl: { current: HTMLDivElement | null }, onDevice: (id: string, at: L.LatLng) => void, onFeeder: (id: string) => void, onFit: () => void, onZoom: (z: number) => void) {
  const ref = useRef<LiveMap | null>(null);
  useEffect(() => {
    if (!mapEl.current) return;
    const map = L.map(mapEl.current, { preferCanvas: true, zoomControl: true, keyboard: true, worldCopyJump: false, attributionControl: true }).setView([20, 0], 2);
    // The view as `lat,lng,zoom`, for the browser tests that point at a place on the map.
    map.on('moveend', () => { const c = map.getCenter(); mapEl.current?.setAttribute('data-view', `${c.lat},${c.lng},${map.getZoom()}`); });
    map.on('zoomend', () => onZoom(map.getZoom()));
    const layer = new DeviceLayer(map, onDevice);
    ref.current = { map, layer, feeders: new FeederLayer(map, layer.renderer, onFeeder), incidents: new IncidentLayer(map, layer.renderer), dark: new DeenergisedLayer(map, layer.renderer), tiles: null, base: null, fitted: false, painted: false };
    L.control.scale({ position: 'bottomleft', metric: true, imperial: true }).addTo(map);
    fitControl(onFit).addTo(map);
    const ro = new ResizeObserver(() => map.invalidateSize());
    ro.observe(mapEl.current);
    return () => {
      ro.disconnect();
      const m = ref.current;
      ref.current = null;
      // Our layers stop drawing first (see also map/canvas-redraw-guard.ts and map/zoom-end-guard.ts).
      m?.base?.remove();
      m?.layer.remove();
      map.stop();
      map.remove();
    };
  }, []);
  return ref;
}

/** The chosen incident, named: its state and the devices bounding its faulted section. */
function IncidentFocus({ incident, timeZone }: { incident: Incident; timeZone: string }) {
  return (
    <div class="notice incident-focus" data-testid="incident-focus" role="status"><span>
      <strong>Incident #{incident.id}</strong> ({incident.status}, {incident.kind}) on {incident.powerLineName ?? incident.powerLineId},
      first trip {formatSecondTime(Date.parse(incident.firstTripAt), timeZone)} (device clock).{' '}
      {incident.sections.length ? incident.sections.map(sectionText).join('; ') : 'Not located: no feeder topology covers its trips.'}
    </span></div>
  );
}

/** The base layer: the configured tiles, or the offline land and borders layer when there are none. */
function useBaseLayer(live: ReturnType<typeof useLeafletMap>, mapEl: { current: HTMLDivElement | null }, tiles: ReturnType<typeof chosenTiles> | undefined) {
  useEffect(() => {
    const m = live.current;
    if (!m || tiles === undefined) return;
    m.tiles?.remove();
    m.base?.remove();
    m.base = null;
    m.tiles = tiles ? L.tileLayer(tiles.url, { maxZoom: tiles.maxZoom, attribution: tiles.attribution }).addTo(m.map) : null;
    mapEl.current?.setAttribute('data-tiles', tiles ? tiles.url : '');
    mapEl.current?.removeAttribute('data-base-layer');
    if (!tiles) {
      const base = new OfflineBaseLayer(m.map, (drawn) => mapEl.current?.setAttribute('data-base-layer', drawn.join(' ')));
      m.base = base;
      base.load().catch(() => mapEl.current?.setAttribute('data-base-layer', 'failed'));
    }
  }, [tiles?.url, tiles === undefined]);
}

export function MapView({ session, query }: { session: Session; query: URLSearchParams }) {
  useMemo(() => performance.mark('faultline:map-start'), []);
  const focusIncident = query.get('incident');
  const focusImei = query.get('device');
  const [line, setLine] = useState('');
  const [state, setState] = useState('');
  const [showFeeders, setShowFeeders] = useState(true);
  const [browserTiles, setBrowserTiles] = useState(browserTileUrl);
  const [zoom, setZoom] = useState(2);
  const data = useMapData({ line, state, incidentId: focusIncident });
  const { res, all, byId, placed } = data;
  const tiles = data.configuredTiles === undefined ? undefined : chosenTiles(browserTiles, data.configuredTiles);
  const mapEl = useRef<HTMLDivElement>(null);
  const byIdRef = useRef(byId);
  byIdRef.current = byId;
  const placedRef = useRef<Shown[]>([]);
  placedRef.current = placed;
  const live = useLeafletMap(mapEl, (id, at) => {
    const d = byIdRef.current.get(id);
    if (d && live.current) L.popup({ maxWidth: 320 }).setLatLng(at).setContent(popupHtml(d)).openOn(live.current.map);
  }, (id) => setLine(id), () => fitAll(false), setZoom);

  /** Fits the view to the devices shown (the first time: without animation, before the first paint). */
  function fitAll(first: boolean) {
    const m = live.current;
    const pts = placedRef.current;
    if (!m || !pts.length) return;
    m.map.fitBounds(L.latLngBounds(pts.map((d) => [d.Lat!, d.Long!] as [number, number])), { padding: [30, 30], maxZoom: 14, animate: !first });
  }
  function focusOn(d: Shown) {
    const m = live.current;
    if (!m || d.Lat === null || d.Long === null) return;
    m.map.setView([d.Lat, d.Long], 17, { animate: false });
    L.popup({ maxWidth: 320 }).setLatLng([d.Lat, d.Long]).setContent(popupHtml(d)).openOn(m.map);
  }

  useBaseLayer(live, mapEl, tiles);

  useEffect(() => {
    const m = live.current;
    if (!m || !res.data) return;
    if (!m.fitted && placed.length) {
      const focus = focusImei ? placed.find((d) => d.IMEINumber === focusImei) : undefined;
      if (focus) focusOn(focus); else fitAll(true);
      m.fitted = true;
    }
    m.layer.setPoints(placed.map((d) => ({ id: d.IMEINumber, lat: d.Lat!, lng: d.Long!, state: d.state, name: d.Real_Name ?? d.IMEINumber })));
    if (!m.painted) {
      m.painted = true;
      performance.mark('faultline:map-data');
      // Two frames: the canvas and the cluster markers have been painted once the second one starts.
      requestAnimationFrame(() => requestAnimationFrame(() => {
        performance.mark('faultline:markers-painted');
        mapEl.current?.setAttribute('data-markers-painted', String(m.layer.drawn));
      }));
    }
    mapEl.current?.setAttribute('data-devices', String(placed.length));
  }, [placed, res.data]);

  useEffect(() => {
    const m = live.current;
    if (!m || !res.data) return;
    m.feeders.setFeeders(showFeeders ? data.feeders : []);
    mapEl.current?.setAttribute('data-feeders', String(m.feeders.drawn));
  }, [data.feeders, showFeeders, res.data]);

  // The faulted sections of the active incidents and the chosen one; ?incident=<id> zooms to that one once.
  const zoomedTo = useRef<string | null>(null);
  useEffect(() => {
    const m = live.current;
    if (!m || !res.data || !data.incidentsLoaded) return;
    const at = (imei: string): [number, number] | null => { const d = byId.get(imei); return d && d.Lat !== null && d.Long !== null ? [d.Lat, d.Long] : null; };
    const chosen = data.chosen && String(data.chosen.id) === focusIncident ? data.chosen : null;
    m.incidents.setIncidents(data.sections, at, chosen?.id ?? null);
    mapEl.current?.setAttribute('data-incident-sections', String(m.incidents.drawn));
    const ends = chosen ? chosen.sections.flatMap((x) => [x.from, ...x.to, ...x.spans]).flatMap((e) => (e.imei === null ? [] : [e.imei])) : [];
    m.layer.setLabelled(new Set(ends));
    const pts = ends.map(at).filter((p): p is [number, number] => p !== null);
    if (chosen && pts.length > 0 && zoomedTo.current !== focusIncident) {
      zoomedTo.current = focusIncident;
      m.map.fitBounds(L.latLngBounds(pts), { padding: [60, 60], maxZoom: 16, animate: false });
      // The chosen incident arrives in its own request, often after the active list drew its section: this
      // says the view is now the incident's (tests read it before they point at the section).
      mapEl.current?.setAttribute('data-zoomed-incident', String(chosen.id));
    }
  }, [data.sections, data.incidentsLoaded, res.data, byId, data.chosen, focusIncident]);

  // Possible de-energised sections (not incidents: no trip), drawn in their own colour.
  useEffect(() => {
    const m = live.current;
    if (!m || !res.data) return;
    m.dark.setSections(data.dark);
    mapEl.current?.setAttribute('data-deenergised-sections', String(m.dark.drawn));
  }, [data.dark, res.data]);

  const chosen = data.chosen && String(data.chosen.id) === focusIncident ? data.chosen : null;
  return (
    <section class="view view-map" aria-labelledby="map-title">
      <div class="view-head">
        <h1 id="map-title">Map</h1>
        <StatusLine loading={res.loading} updatedAt={res.updatedAt} timeZone={session.timeZone} extra={res.data ? `${data.shown.length.toLocaleString('en-US')} of ${all.length.toLocaleString('en-US')} devices shown` : undefined} />
      </div>
      <div class="map-layout">
        <MapSide lines={data.lines} counts={data.counts} line={line} setLine={setLine} state={state} setState={setState} showFeeders={showFeeders} setShowFeeders={setShowFeeders}
          all={all} onFind={focusOn} offlineAfterHours={data.offlineAfterHours} timeZone={session.timeZone} tileUrl={tiles?.url ?? ''} onTiles={() => setBrowserTiles(browserTileUrl())} />
        <div class="map-main">
          {res.error && <ErrorState error={res.error} onRetry={res.reload} />}
          {res.data && all.length === 0 && <EmptyState title="No devices to show.">You see the devices of your groups; ask an administrator if you expected some.</EmptyState>}
          {res.data && all.length > 0 && placed.length === 0 && <EmptyState title="No device matches these filters, or none has a location.">Choose "All" in the filters.</EmptyState>}
          {chosen && <IncidentFocus incident={chosen} timeZone={session.timeZone} />}
          {tiles === null && zoom >= LABEL_MIN_ZOOM - 3 && (
            <p class="basemap-notice" data-testid="basemap-notice">No streets at this zoom: the built-in base map has boundaries only. Ask your faultline operator to set the utility's tile server (MAP_TILE_URL), or set one under Map settings.</p>
          )}
          <div ref={mapEl} class="map" data-testid="map" role="application" aria-label="Device map; arrow keys pan, plus and minus zoom" />
        </div>
      </div>
    </section>
  );
}
