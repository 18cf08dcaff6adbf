// What the map view shows, read from the API and derived per filter: the devices with their state, the
// feeders to draw, the legend counts (of the power line chosen, as the map shows it), the active incidents
// and the one chosen by ?incident= (read by id, so a closed one shows too), and the possible de-energised sections.
import { useMemo } from 'preact/hooks';
import type { DeenergisedSection } from '../api/deenergised';
import type { Incident, TopologyRow } from '../api/incidents';
import type { DeviceSummary, MapDevice } from '../api/types';
import { deviceState, stateRank } from '../fault-state';
import type { Feeder } from '../map/feeder-layer';
import type { Shown } from '../map/popup';
import type { PortalSettings } from '../map/tile-source';
import { powerLinesOf } from '../power-lines';
import { useApi } from '../use-api';

export const REFRESH_MS = 30_000;

export function useMapData({ line, state, incidentId }: { line: string; state: string; incidentId: string | null }) {
  const res = useApi<{ data: MapDevice[] }>('/api/device-records/map-data', {}, { refreshMs: REFRESH_MS });
  const summary = useApi<DeviceSummary>('/api/device-records/device-summary');
  const topology = useApi<{ data: TopologyRow[] }>('/api/feeder-topology');
  const settings = useApi<PortalSettings>('/api/portal-settings');
  const incidents = useApi<{ data: Incident[] }>('/api/incidents', { status: 'active', limit: 500 }, { refreshMs: REFRESH_MS });
  // Possible de-energised sections: not incidents, drawn apart (map/deenergised-layer.ts).
  const deenergised = useApi<{ data: DeenergisedSection[] }>('/api/deenergised-sections', { limit: 500 }, { refreshMs: REFRESH_MS });
  const chosen = useApi<Incident>(incidentId ? `/api/incidents/${encodeURIComponent(incidentId)}` : null, {}, { refreshMs: REFRESH_MS });

  const all: Shown[] = useMemo(() => (res.data?.data ?? []).map((d) => ({ ...d, state: deviceState(d.ActualOngoingFault, d.LastCheckInTime, d.Offline), stale: d.Offline })),
    [res.data]);
  const byId = useMemo(() => new Map(all.map((d) => [d.IMEINumber, d])), [all]);
  const lines = useMemo(() => powerLinesOf(all), [all]);
  const onLine = useMemo(() => (line ? all.filter((d) => d.PowerLineID === line) : all), [all, line]);
  const shown = useMemo(() => onLine.filter((d) => !state || d.state === state), [onLine, state]);
  const placed = useMemo(() => shown.filter((d) => d.Lat !== null && d.Long !== null), [shown]);
  // A feeder's route joins all its located devices, whatever the state filter shows.
  const feeders: Feeder[] = useMemo(() => {
    const byLine = new Map<string, Feeder>();
    // The imported topology replaces the approximate trace of its power line.
    const links = new Map<string, [string, string][]>();
    for (const t of topology.data?.data ?? []) {
      if (t.PowerLineID && t.UpstreamIMEI) links.set(t.PowerLineID, [...(links.get(t.PowerLineID) ?? []), [t.IMEINumber, t.UpstreamIMEI]]);
    }
    for (const d of onLine) {
      if (d.Lat === null || d.Long === null || !d.PowerLineID) continue;
      let f = byLine.get(d.PowerLineID);
      if (!f) byLine.set(d.PowerLineID, f = { id: d.PowerLineID, name: d.PowerLineName ?? d.PowerLineID, devices: [], links: links.get(d.PowerLineID) ?? [] });
      f.devices.push({ id: d.IMEINumber, lat: d.Lat, lng: d.Long, state: d.state });
    }
    return [...byLine.values()];
  }, [onLine, topology.data]);
  // The legend counts what the power line filter leaves (the state filter picks from these).
  const counts = useMemo(() => {
    const m = new Map<string, number>();
    for (const d of onLine) m.set(d.state, (m.get(d.state) ?? 0) + 1);
    return [...m].sort((a, b) => stateRank(b[0]) - stateRank(a[0]) || a[0].localeCompare(b[0]));
  }, [onLine]);
  const sections = useMemo(() => {
    const list = (incidents.data?.data ?? []).filter((i) => !line || i.powerLineId === line);
    const c = chosen.data;
    return c && !list.some((i) => i.id === c.id) ? [...list, c] : list;
  }, [incidents.data, chosen.data, line]);

  const dark = useMemo(() => (deenergised.data?.data ?? []).filter((s) => !line || s.powerLineId === line), [deenergised.data, line]);

  return {
    res, all, dark, byId, lines, shown, placed, feeders, counts, sections, chosen: chosen.data, incidentsLoaded: incidents.data !== null,
    offlineAfterHours: summary.data?.offlineAfterHours ?? 26, 
    // undefined until the server has said (so the offline layer does not flash first); null: none configured.
    configuredTiles: settings.data ? settings.data.mapTiles : settings.error ? null : undefined,
  };
}
