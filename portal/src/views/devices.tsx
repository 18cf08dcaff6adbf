// Devices (device-summary, all-devices): counts as cards, then the device list. The URL holds the list's
// query (page, limit, sortBy, filterBy) like the data log. A card is a filter: clicking it lists exactly the
// devices it counts; the list also filters by state and power line and sorts by state (by code, so a masked
// organisation, whose order would reveal the class, gets no state sort).
import { useState } from 'preact/hooks';
import type { Session } from '../api/session';
import type { Device, DeviceSummary, MapDevice, Page } from '../api/types';
import { FaultBadge } from '../components/fault-badge';
import { faultStateChoices, powerText } from '../fault-state';
import { Link } from '../components/link';
import { EmptyState, ErrorState, StatusLine } from '../components/states';
import { DataTable, PagedRows, type Column, type Sort } from '../components/table';
import { powerLinesOf } from '../power-lines';
import { href, navigate } from '../router';
import { parseJson } from './data-log';
import { useApi } from '../use-api';

const PARAMS = ['page', 'limit', 'sortBy', 'filterBy'] as const;
type Filters = Record<string, Record<string, string>>;

function columns(masked: boolean): Column<Device>[] {
  return [
    { key: 'Real_Name', label: 'Name', sortKey: 'Real_Name', render: (d) => <Link href={`/devices/${encodeURIComponent(d.IMEINumber)}`}>{d.Real_Name ?? d.IMEINumber}</Link> },
    { key: 'IMEINumber', label: 'IMEI', sortKey: 'IMEINumber' },
    { key: 'PowerLineName', label: 'Power line', sortKey: 'PowerLineID' },
    { key: 'ActualOngoingFault', label: 'State', sortKey: masked ? undefined : 'ActualOngoingFault', render: (d) => <FaultBadge value={d.ActualOngoingFault} /> },
    { key: 'LastCheckInTime', label: 'Last check-in', sortKey: 'LastCheckInTime' },
    { key: 'BatteryOrLine', label: 'Power', render: (d) => powerText(d.BatteryOrLine) ?? '—' },
    { key: 'BatteryMCU', label: 'Battery (V)', numeric: true },
    { key: 'AverageCurrent1m', label: 'Current 1 m (A)', numeric: true },
    { key: 'rssi', label: 'RSSI (dBm)', numeric: true },
    { key: 'model', label: 'Model' },
    { key: 'serialNumber', label: 'Serial', sortKey: 'serialNumber' },
  ];
}

/** A summary count that filters the list to what it counts (`filter` null: every device). */
function Card({ label, value, tone, testId, filter, active, onPick }: {
  label: string; value: number | string; tone?: string; testId: string; filter: Filters | null; active: boolean; onPick: (f: Filters | null) => void;
}) {
  return (
    <button type="button" class={`card ${tone ?? ''}`} data-testid={testId} aria-pressed={active} onClick={() => onPick(filter)}>
      <span class="card-value">{value}</span>
      <span class="card-label">{label}</span>
    </button>
  );
}

export function DevicesView({ session, query }: { session: Session; query: URLSearchParams }) {
  const q: Record<string, string> = {};
  for (const k of PARAMS) { const v = query.get(k); if (v) q[k] = v; }
  const summary = useApi<DeviceSummary>('/api/device-records/device-summary', {}, { refreshMs: 30_000 });
  const list = useApi<Page<Device>>('/api/device-records/all-devices', q);
  const lines = powerLinesOf(useApi<{ data: MapDevice[] }>('/api/device-records/map-data').data?.data ?? []);
  const filters = parseJson<Filters>(q.filterBy ?? null, {});
  const [name, setName] = useState(filters.Real_Name?.contains ?? '');
  const sortRaw = parseJson<Sort | Sort[] | null>(q.sortBy ?? null, null);
  const sort = Array.isArray(sortRaw) ? sortRaw[0] ?? null : sortRaw;
  const go = (change: Record<string, string | number | null>) => {
    const next = { ...q, ...change } as Record<string, string | number | null>;
    if (!('page' in change)) next.page = null;
    navigate(href('/devices', next));
  };
  const setFilters = (f: Filters) => go({ filterBy: Object.keys(f).length ? JSON.stringify(f) : null });
  const setFilter = (field: string, value: string) => {
    const f = { ...filters };
    if (value) f[field] = { eq: value }; else delete f[field];
    setFilters(f);
  };
  // A card replaces the state and connectivity filters, and keeps the name and power line ones.
  const pick = (card: Filters | null) => {
    const { ActualOngoingFault: _s, Connectivity: _c, ...rest } = filters;
    setFilters(card ? { ...rest, ...card } : rest);
  };
  const isActive = (card: Filters | null) => JSON.stringify(card ?? {}) === JSON.stringify(Object.fromEntries(Object.entries(filters).filter(([k]) => k === 'ActualOngoingFault' || k === 'Connectivity')));
  const card = (testId: string, label: string, value: number | undefined, filter: Filters | null, tone?: string) =>
    <Card key={testId} testId={testId} label={label} value={value ?? '–'} tone={tone} filter={filter} active={isActive(filter)} onPick={pick} />;
  const s = summary.data;
  return (
    <section class="view" aria-labelledby="devices-title">
      <div class="view-head">
        <h1 id="devices-title">Devices</h1>
        <StatusLine loading={summary.loading || list.loading} updatedAt={list.updatedAt} timeZone={session.timeZone} />
      </div>
      {summary.error && <ErrorState error={summary.error} onRetry={summary.reload} />}
      <div class="cards" aria-label="Summary; each card filters the list">
        {card('card-total', 'Devices', s?.totalDevices, null)}
        {card('card-online', 'Online', s?.online, { Connectivity: { eq: 'online' } }, 'ok')}
        {card('card-offline', `Offline (missed two check-ins, or none for ${s?.offlineAfterHours ?? '…'} h)`, s?.offline, { Connectivity: { eq: 'offline' } }, 'warn')}
        {card('card-never', 'Never checked in', s?.neverCheckedIn, { Connectivity: { eq: 'never' } })}
        {card('card-low-battery', 'Low battery', s?.lowBattery, { ActualOngoingFault: { eq: 'Low Battery' } }, 'warn')}
        {s?.byActualOngoingFault.map((b) => card(`card-state-${b.ActualOngoingFault}`, `State: ${b.ActualOngoingFault}`, b.count, { ActualOngoingFault: { eq: b.ActualOngoingFault } }, b.ActualOngoingFault === 'None' ? 'ok' : 'bad'))}
      </div>
      <form class="filters" onSubmit={(e) => { e.preventDefault(); const f = { ...filters }; delete f.Real_Name; if (name) f.Real_Name = { contains: name }; setFilters(f); }}>
        <label>Name contains<input name="name" value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
        <label>State
          <select name="state" value={filters.ActualOngoingFault?.eq ?? ''} onChange={(e) => setFilter('ActualOngoingFault', e.currentTarget.value)}>
            <option value="">Any</option>
            {faultStateChoices(session.masked).map((f) => <option key={f} value={f}>{f}</option>)}
          </select>
        </label>
        <label>Power line
          <select name="line" value={filters.PowerLineID?.eq ?? ''} onChange={(e) => setFilter('PowerLineID', e.currentTarget.value)}>
            <option value="">All power lines</option>
            {lines.map(([id, label]) => <option key={id} value={id}>{label}</option>)}
          </select>
        </label>
        <button type="submit" class="button">Apply</button>
        <button type="button" class="button" onClick={() => { setName(''); navigate('/devices'); }}>Clear</button>
      </form>
      {list.error && <ErrorState error={list.error} onRetry={list.reload} />}
      {list.data && (
        <PagedRows total={list.data.total} rows={list.data.data.length} page={list.data.page} limit={list.data.limit} onPage={(p) => go({ page: p || null })} onLimit={(l) => go({ limit: l })}
          empty={<EmptyState title="No devices match.">Clear the filter; if the list stays empty, ask an administrator which groups you belong to.</EmptyState>}>
          <DataTable caption="Devices" columns={columns(session.masked)} rows={list.data.data} rowKey={(d) => d.IMEINumber} busy={list.loading}
            sort={sort ?? { field: 'IMEINumber', order: 'asc' }} onSort={(v) => go({ sortBy: JSON.stringify(v) })} />
        </PagedRows>
      )}
    </section>
  );
}
