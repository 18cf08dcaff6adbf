// Map (map-data): every device in reach, coloured by state, clustered when zoomed out, with a popup of the
// API's fields. Tiles are optional: with no tile URL the map draws an offline base layer (boundaries shipped
// in the build, map/offline-base-layer.ts), since control rooms often have no internet. The tile URL comes
// from the build (VITE_MAP_TILE_URL) and can be changed per browser under "Map settings". Feeders are drawn
// along their imported topology (GET /api/feeder-topology), else as each power line's approximate route through
// its devices (map/feeder-trace.ts); the faulted sections of active incidents are drawn over them
// (map/incident-layer.ts). A scale bar and a "fit all devices" button orient a crew; `?device=<imei>` opens the
// map on one device (the device page's "Show on map"), `?incident=<id>` on an incident's section.
import L from 'leaflet';
import 'leaflet/dist/leaflet.css';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Session } from '../api/session';
import type { DeviceSummary, MapDevice } from '../api/types';
import { FaultBadge } from '../components/fault-badge';
import { Link } from '../components/link';
import { EmptyState, ErrorState, StatusLine } from '../components/states';
import { COMM_LOST, deviceState, powerText, stateColour, stateRank } from '../fault-state';
import '../map/canvas-redraw-guard';
import { DeviceLayer } from '../map/device-layer';
import { FeederLayer, type Feeder } from '../map/feeder-layer';
import { IncidentLayer, SECTION_COLOUR } from '../map/incident-layer';
import type { Incident, TopologyRow } from '../api/incidents';
import { OfflineBaseLayer } from '../map/offline-base-layer';
import { powerLinesOf } from '../power-lines';
import { navigate } from '../router';
import { useApi } from '../use-api';

const TILE_KEY = 'faultline.tileUrl';
const BUILD_TILE_URL = (import.meta.env.VITE_MAP_TILE_URL as string | undefined) ?? '';
const REFRESH_MS = 30_000;

function tileUrl(): string {
  return localStorage.getItem(TILE_KEY) ?? BUILD_TILE_URL;
}

interface Shown extends MapDevice { state: string; stale: boolean }

function popupHtml(d: Shown): HTMLElement {
  const el = document.createElement('div');
  el.className = 'popup';
  const row = (k: string, v: string | null) => {
    const dt = document.createElement('dt'); dt.textContent = k;
    const dd = document.createElement('dd'); dd.textContent = v ?? '—';
    return [dt, dd];
  };
  const h = document.createElement('h3'); h.textContent = d.Real_Name ?? d.IMEINumber;
  const dl = document.createElement('dl');
  dl.append(
    ...row('IMEI', d.IMEINumber), ...row('State', d.ActualOngoingFault), ...(d.state === COMM_LOST || d.stale ? row('Communication', d.stale ? 'lost (no recent check-in)' : 'lost') : []),
    ...row('Last check-in', d.LastCheckInTime), ...row('Battery / line', powerText(d.BatteryOrLine)),
    ...row('Power line', d.PowerLineName ?? d.PowerLineID),
  );
  const a = document.createElement('a');
  a.href = `/devices/${encodeURIComponent(d.IMEINumber)}`;
  a.textContent = 'Open device page';
  a.addEventListener('click', (e) => { e.preventDefault(); navigate(a.pathname); });
  el.append(h, dl, a);
  return el;
}

/** A Leaflet button under the zoom control that shows every device again. */
function fitControl(onFit: () => void): L.Control {
  const control = new L.Control({ position: 'topleft' });
  control.onAdd = () => {
    const bar = L.DomUtil.create('div', 'leaflet-bar');
    const button = L.DomUtil.create('a', 'fit-all', bar);
    button.href = '#';
    button.title = 'Fit all devices';
    button.setAttribute('role', 'button');
    button.setAttribute('aria-label', 'Fit all devices');
    button.textContent = '⤢';
    L.DomEvent.disableClickPropagation(bar);
    L.DomEvent.on(button, 'click', (e) => { L.DomEvent.preventDefault(e); onFit(); });
    return bar;
  };
  return control;
}

export function MapView({ session, query }: { session: Session; query: URLSearchParams }) {
  useMemo(() => performance.mark('faultline:map-start'), []);
  const res = useApi<{ data: MapDevice[] }>('/api/device-records/map-data', {}, { refreshMs: REFRESH_MS });
  const summary = useApi<DeviceSummary>('/api/device-records/device-summary');
  const topology = useApi<{ data: TopologyRow[] }>('/api/feeder-topology');
  const incidents = useApi<{ data: Incident[] }>('/api/incidents', { status: 'active', limit: 500 }, { refreshMs: REFRESH_MS });
  const focusIncident = query.get('incident');
  const offlineAfterHours = summary.data?.offlineAfterHours ?? 26;
  const [line, setLine] = useState('');
  const [state, setState] = useState('');
  const [search, setSearch] = useState('');
  const [settings, setSettings] = useState(false);
  const [showFeeders, setShowFeeders] = useState(true);
  const [tiles, setTiles] = useState(tileUrl);
  const mapEl = useRef<HTMLDivElement>(null);
  const mapRef = useRef<{ map: L.Map; layer: DeviceLayer; feeders: FeederLayer; incidents: IncidentLayer; tiles: L.TileLayer | null; base: OfflineBaseLayer | null; fitted: boolean; painted: boolean } | null>(null);
  const settingsRef = useRef<HTMLFormElement>(null);
  const focusImei = query.get('device');

  const all: Shown[] = useMemo(() => (res.data?.data ?? []).map((d) => ({ ...d, state: deviceState(d.ActualOngoingFault, d.LastCheckInTime, d.Offline), stale: d.Offline })),
    [res.data]);
  const byId = useMemo(() => new Map(all.map((d) => [d.IMEINumber, d])), [all]);
  const lines = useMemo(() => powerLinesOf(all), [all]);
  const shown = useMemo(() => all.filter((d) => (!line || d.PowerLineID === line) && (!state || d.state === state)), [all, line, state]);
  const placed = useMemo(() => shown.filter((d) => d.Lat !== null && d.Long !== null), [shown]);
  // A feeder's route joins all its located devices, whatever the state filter shows.
  const feeders: Feeder[] = useMemo(() => {
    const byLine = new Map<string, Feeder>();
    // The imported topology replaces the approximate trace of its power line.
    const links = new Map<string, [string, string][]>();
    for (const t of topology.data?.data ?? []) {
      if (t.PowerLineID && t.UpstreamIMEI) links.set(t.PowerLineID, [...(links.get(t.PowerLineID) ?? []), [t.IMEINumber, t.UpstreamIMEI]]);
    }
    for (const d of all) {
      if (d.Lat === null || d.Long === null || !d.PowerLineID || (line && d.PowerLineID !== line)) continue;
      let f = byLine.get(d.PowerLineID);
      if (!f) byLine.set(d.PowerLineID, f = { id: d.PowerLineID, name: d.PowerLineName ?? d.PowerLineID, devices: [], links: links.get(d.PowerLineID) ?? [] });
      f.devices.push({ id: d.IMEINumber, lat: d.Lat, lng: d.Long, state: d.state });
    }
    return [...byLine.values()];
  }, [all, line, topology.data]);
  const counts = useMemo(() => {
    const m = new Map<string, number>();
    for (const d of all) m.set(d.state, (m.get(d.state) ?? 0) + 1);
    return [...m].sort((a, b) => stateRank(b[0]) - stateRank(a[0]) || a[0].localeCompare(b[0]));
  }, [all]);

  useEffect(() => {
    if (!mapEl.current) return;
    const map = L.map(mapEl.current, { preferCanvas: true, zoomControl: true, keyboard: true, worldCopyJump: false, attributionControl: true }).setView([20, 0], 2);
    // The view as `lat,lng,zoom`, for the browser tests that point at a place on the map.
    map.on('moveend', () => { const c = map.getCenter(); mapEl.current?.setAttribute('data-view', `${c.lat},${c.lng},${map.getZoom()}`); });
    const layer = new DeviceLayer(map, (id, at) => {
      const d = byIdRef.current.get(id);
      if (d) L.popup({ maxWidth: 320 }).setLatLng(at).setContent(popupHtml(d)).openOn(map);
    });
    const feederLayer = new FeederLayer(map, layer.renderer, (id) => setLine(id));
    const incidentLayer = new IncidentLayer(map, layer.renderer);
    L.control.scale({ position: 'bottomleft', metric: true, imperial: true }).addTo(map);
    fitControl(() => fitAll(false)).addTo(map);
    mapRef.current = { map, layer, feeders: feederLayer, incidents: incidentLayer, tiles: null, base: null, fitted: false, painted: false };
    const ro = new ResizeObserver(() => map.invalidateSize());
    ro.observe(mapEl.current);
    return () => {
      ro.disconnect();
      const m = mapRef.current;
      mapRef.current = null;
      // Our layers stop drawing first (see also map/canvas-redraw-guard.ts).
      m?.base?.remove();
      m?.layer.remove();
      map.stop();
      map.remove();
    };
  }, []);
  const byIdRef = useRef(byId);
  byIdRef.current = byId;
  const placedRef = useRef<Shown[]>([]);
  placedRef.current = placed;

  /** Fits the view to the devices shown (the first time: without animation, before the first paint). */
  function fitAll(first: boolean) {
    const m = mapRef.current;
    const pts = placedRef.current;
    if (!m || !pts.length) return;
    m.map.fitBounds(L.latLngBounds(pts.map((d) => [d.Lat!, d.Long!] as [number, number])), { padding: [30, 30], maxZoom: 14, animate: !first });
  }

  useEffect(() => {
    const m = mapRef.current;
    if (!m) return;
    m.tiles?.remove();
    m.base?.remove();
    m.base = null;
    m.tiles = tiles ? L.tileLayer(tiles, { maxZoom: 19, attribution: 'Map tiles: see your tile server' }).addTo(m.map) : null;
    mapEl.current?.removeAttribute('data-base-layer');
    if (!tiles) {
      const base = new OfflineBaseLayer(m.map, (drawn) => mapEl.current?.setAttribute('data-base-layer', drawn.join(' ')));
      m.base = base;
      base.load().catch(() => mapEl.current?.setAttribute('data-base-layer', 'failed'));
    }
  }, [tiles]);

  useEffect(() => {
    const m = mapRef.current;
    if (!m || !res.data) return;
    if (!m.fitted && placed.length) {
      const focus = focusImei ? placed.find((d) => d.IMEINumber === focusImei) : undefined;
      if (focus) focusOn(focus); else fitAll(true);
      m.fitted = true;
    }
    m.layer.setPoints(placed.map((d) => ({ id: d.IMEINumber, lat: d.Lat!, lng: d.Long!, state: d.state })));
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
    const m = mapRef.current;
    if (!m || !res.data) return;
    m.feeders.setFeeders(showFeeders ? feeders : []);
    mapEl.current?.setAttribute('data-feeders', String(m.feeders.drawn));
  }, [feeders, showFeeders, res.data]);

  // The faulted sections of the active incidents; ?incident=<id> zooms to that one.
  useEffect(() => {
    const m = mapRef.current;
    if (!m || !res.data || !incidents.data) return;
    const at = (imei: string): [number, number] | null => { const d = byId.get(imei); return d && d.Lat !== null && d.Long !== null ? [d.Lat, d.Long] : null; };
    const active = incidents.data.data.filter((i) => !line || i.powerLineId === line);
    m.incidents.setIncidents(active, at);
    mapEl.current?.setAttribute('data-incident-sections', String(m.incidents.drawn));
    const focus = focusIncident ? active.find((i) => String(i.id) === focusIncident) : undefined;
    const pts = focus ? focus.sections.flatMap((x) => [x.from, ...x.to, ...x.spans]).map((e) => at(e.imei)).filter((p): p is [number, number] => p !== null) : [];
    if (pts.length > 0) m.map.fitBounds(L.latLngBounds(pts), { padding: [60, 60], maxZoom: 16, animate: false });
  }, [incidents.data, res.data, byId, line, focusIncident]);

  const matches = search.trim().length >= 2
    ? all.filter((d) => (d.Real_Name ?? '').toLowerCase().includes(search.toLowerCase()) || d.IMEINumber.includes(search.trim())).slice(0, 8) : [];
  function focusOn(d: Shown) {
    const m = mapRef.current;
    if (!m || d.Lat === null || d.Long === null) return;
    m.map.setView([d.Lat, d.Long], 17, { animate: false });
    L.popup({ maxWidth: 320 }).setLatLng([d.Lat, d.Long]).setContent(popupHtml(d)).openOn(m.map);
  }

  return (
    <section class="view view-map" aria-labelledby="map-title">
      <div class="view-head">
        <h1 id="map-title">Map</h1>
        <StatusLine loading={res.loading} updatedAt={res.updatedAt} timeZone={session.timeZone} extra={res.data ? `${shown.length.toLocaleString('en-US')} of ${all.length.toLocaleString('en-US')} devices shown` : undefined} />
      </div>
      <div class="map-layout">
        <aside class="map-side" aria-label="Map filters and legend">
          <label>Power line
            <select name="powerLine" value={line} onChange={(e) => setLine(e.currentTarget.value)}>
              <option value="">All power lines</option>
              {lines.map(([id, name]) => <option key={id} value={id}>{name}</option>)}
            </select>
          </label>
          <label>State
            <select name="state" value={state} onChange={(e) => setState(e.currentTarget.value)}>
              <option value="">All states</option>
              {counts.map(([s]) => <option key={s} value={s}>{s}</option>)}
            </select>
          </label>
          <ul class="legend" aria-label="Devices by state" data-testid="legend">
            {counts.map(([s, n]) => (
              <li key={s} data-state={s}><span class="swatch" style={{ background: stateColour(s) }} aria-hidden="true" />{s}<span class="legend-count">{n}</span></li>
            ))}
          </ul>
          <label class="checkbox"><input type="checkbox" name="feeders" checked={showFeeders} onChange={(e) => setShowFeeders(e.currentTarget.checked)} />
            Feeders (imported topology, else approximate route)</label>
          <p class="muted small" data-testid="feeder-legend"><span class="feeder-swatch" aria-hidden="true" /> healthy feeder (thin grey), <span class="feeder-swatch faulted" aria-hidden="true" /> feeder with a fault (thick, in the fault's colour, drawn on top). Power lines with an imported feeder topology are drawn along it (each indicator to the one upstream); the others as the shortest lines joining their devices (an approximate route). Click a feeder to filter by it.</p>
          <p class="muted small" data-testid="incident-legend"><span class="feeder-swatch" style={{ borderTop: `5px dashed ${SECTION_COLOUR}` }} aria-hidden="true" /> faulted section of an active incident (thick, dashed). <Link href="/incidents">Incidents</Link></p>
          <label>Find a device
            <input type="search" name="find" value={search} placeholder="Name or IMEI" onInput={(e) => setSearch(e.currentTarget.value)} />
          </label>
          {matches.length > 0 && (
            <ul class="matches">
              {matches.map((d) => <li key={d.IMEINumber}><button type="button" class="link-button" onClick={() => focusOn(d)}>{d.Real_Name ?? d.IMEINumber}</button> <FaultBadge value={d.ActualOngoingFault} /></li>)}
            </ul>
          )}
          <p class="muted small">Communication lost: no check-in within two of the device's usual check-in intervals (at most {offlineAfterHours} h), or Disconnected / No Data. Times in {session.timeZone}.</p>
          <button type="button" class="link-button" aria-expanded={settings} onClick={() => { setSettings(!settings); requestAnimationFrame(() => settingsRef.current?.scrollIntoView({ block: 'nearest' })); }}>Map settings</button>
          {settings && (
            <form ref={settingsRef} class="tile-form" onSubmit={(e) => { e.preventDefault(); const v = (new FormData(e.currentTarget).get('tiles') as string).trim(); if (v) localStorage.setItem(TILE_KEY, v); else localStorage.setItem(TILE_KEY, ''); setTiles(v); }}>
              <label>Tile URL (empty: the offline base layer of boundaries)<input name="tiles" defaultValue={tiles} placeholder="https://tiles.example/{z}/{x}/{y}.png" /></label>
              <button type="submit" class="button">Save</button>
            </form>
          )}
          <p><Link href="/devices">Device list</Link></p>
        </aside>
        <div class="map-main">
          {res.error && <ErrorState error={res.error} onRetry={res.reload} />}
          {res.data && all.length === 0 && <EmptyState title="No devices to show.">You see the devices of your groups; ask an administrator if you expected some.</EmptyState>}
          {res.data && all.length > 0 && placed.length === 0 && <EmptyState title="No device matches these filters, or none has a location.">Choose "All" in the filters.</EmptyState>}
          <div ref={mapEl} class="map" data-testid="map" role="application" aria-label="Device map; arrow keys pan, plus and minus zoom" />
        </div>
      </div>
    </section>
  );
}
