// The map's side panel: power line and state filters, the legend (counts of the power line chosen), device
// search, and the per-browser tile server setting.
import { useRef, useState } from 'preact/hooks';
import { FaultBadge } from '../components/fault-badge';
import { Link } from '../components/link';
import { stateColour } from '../fault-state';
import { DEENERGISED_COLOUR } from '../map/deenergised-layer';
import { SECTION_COLOUR } from '../map/incident-layer';
import type { Shown } from '../map/popup';
import { saveBrowserTileUrl } from '../map/tile-source';

export interface MapSideProps {
  lines: [string, string][];
  counts: [string, number][];
  line: string; setLine(v: string): void;
  state: string; setState(v: string): void;
  showFeeders: boolean; setShowFeeders(v: boolean): void;
  all: readonly Shown[];
  onFind(d: Shown): void;
  offlineAfterHours: number;
  timeZone: string;
  tileUrl: string;
  onTiles(): void;
}

function TileSettings({ tileUrl, onTiles }: Pick<MapSideProps, 'tileUrl' | 'onTiles'>) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLFormElement>(null);
  const save = (url: string | null) => { saveBrowserTileUrl(url); onTiles(); };
  return (
    <>
      <button type="button" class="link-button" aria-expanded={open} onClick={() => { setOpen(!open); requestAnimationFrame(() => ref.current?.scrollIntoView({ block: 'nearest' })); }}>Map settings</button>
      {open && (
        <form ref={ref} class="tile-form" onSubmit={(e) => { e.preventDefault(); save((new FormData(e.currentTarget).get('tiles') as string).trim()); }}>
          <label>Tile server for this browser (empty: no tiles, boundaries only)<input name="tiles" defaultValue={tileUrl} placeholder="https://tiles.example/{z}/{x}/{y}.png" /></label>
          <button type="submit" class="button">Save</button>
          <button type="button" class="link-button" onClick={() => save(null)}>Use the configured server</button>
        </form>
      )}
    </>
  );
}

export function MapSide(p: MapSideProps) {
  const [search, setSearch] = useState('');
  const matches = search.trim().length >= 2
    ? p.all.filter((d) => (d.Real_Name ?? '').toLowerCase().includes(search.toLowerCase()) || d.IMEINumber.includes(search.trim())).slice(0, 8) : [];
  return (
    <aside class="map-side" aria-label="Map filters and legend">
      <label>Power line
        <select name="powerLine" value={p.line} onChange={(e) => p.setLine(e.currentTarget.value)}>
          <option value="">All power lines</option>
          {p.lines.map(([id, name]) => <option key={id} value={id}>{name}</option>)}
        </select>
      </label>
      <label>State
        <select name="state" value={p.state} onChange={(e) => p.setState(e.currentTarget.value)}>
          <option value="">All states</option>
          {p.counts.map(([s]) => <option key={s} value={s}>{s}</option>)}
        </select>
      </label>
      <ul class="legend" aria-label="Devices by state" data-testid="legend">
        {p.counts.map(([s, n]) => (
          <li key={s} data-state={s}><span class="swatch" style={{ background: stateColour(s) }} aria-hidden="true" />{s}<span class="legend-count">{n}</span></li>
        ))}
      </ul>
      <label class="checkbox"><input type="checkbox" name="feeders" checked={p.showFeeders} onChange={(e) => p.setShowFeeders(e.currentTarget.checked)} />Feeders</label>
      <ul class="line-key small" data-testid="feeder-legend">
        <li><span class="feeder-swatch" aria-hidden="true" />feeder</li>
        <li><span class="feeder-swatch faulted" aria-hidden="true" />feeder with a fault</li>
        <li data-testid="incident-legend"><span class="feeder-swatch" style={{ borderTop: `5px dashed ${SECTION_COLOUR}` }} aria-hidden="true" /><span>faulted section (<Link href="/incidents">incidents</Link>)</span></li>
        <li data-testid="deenergised-legend"><span class="feeder-swatch" style={{ borderTop: `4px dotted ${DEENERGISED_COLOUR}` }} aria-hidden="true" /><span>possible de-energised section (silent, no trip)</span></li>
      </ul>
      <label>Find a device
        <input type="search" name="find" value={search} placeholder="Name or IMEI" onInput={(e) => setSearch(e.currentTarget.value)} />
      </label>
      {matches.length > 0 && (
        <ul class="matches">
          {matches.map((d) => <li key={d.IMEINumber}><button type="button" class="link-button" onClick={() => p.onFind(d)}>{d.Real_Name ?? d.IMEINumber}</button> <FaultBadge value={d.ActualOngoingFault} /></li>)}
        </ul>
      )}
      <p class="muted small" title={`No check-in within two of the device's usual intervals (at most ${p.offlineAfterHours} h), or Disconnected / No Data.`}>Communication lost: no recent check-in. Times in {p.timeZone}.</p>
      <TileSettings tileUrl={p.tileUrl} onTiles={p.onTiles} />
      <p><Link href="/devices">Device list</Link></p>
    </aside>
  );
}
