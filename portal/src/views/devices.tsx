// Devices (device-summary, all-devices): counts as cards, then the device list. The URL holds the list's
// query (page, limit, sortBy, filterBy) like the data log.
import { useState } from 'preact/hooks';
import type { Session } from '../api/session';
import type { Device, DeviceSummary, Page } from '../api/types';
import { FaultBadge } from '../components/fault-badge';
import { powerText } from '../fault-state';
import { Link } from '../components/link';
import { EmptyState, ErrorState, StatusLine } from '../components/states';
import { DataTable, Pager, type Column, type Sort } from '../components/table';
import { href, navigate } from '../router';
import { parseJson } from './data-log';
import { useApi } from '../use-api';

const PARAMS = ['page', 'limit', 'sortBy', 'filterBy'] as const;

const COLUMNS: Column<Device>[] = [
  { key: 'Real_Name', label: 'Name', sortKey: 'Real_Name', render: (d) => <Link href={`/devices/${encodeURIComponent(d.IMEINumber)}`}>{d.Real_Name ?? d.IMEINumber}</Link> },
  { key: 'IMEINumber', label: 'IMEI', sortKey: 'IMEINumber' },
  { key: 'PowerLineName', label: 'Power line', sortKey: 'PowerLineID' },
  { key: 'ActualOngoingFault', label: 'State', render: (d) => <FaultBadge value={d.ActualOngoingFault} /> },
  { key: 'LastCheckInTime', label: 'Last check-in', sortKey: 'LastCheckInTime' },
  { key: 'BatteryOrLine', label: 'Power', render: (d) => powerText(d.BatteryOrLine) ?? '—' },
  { key: 'BatteryMCU', label: 'Battery (V)', numeric: true },
  { key: 'AverageCurrent1m', label: 'Current 1 m (A)', numeric: true },
  { key: 'model', label: 'Model' },
  { key: 'serialNumber', label: 'Serial', sortKey: 'serialNumber' },
];

function Card({ label, value, tone, testId }: { label: string; value: number | string; tone?: string; testId: string }) {
  return (
    <div class={`card ${tone ?? ''}`} data-testid={testId}>
      <span class="card-value">{value}</span>
      <span class="card-label">{label}</span>
    </div>
  );
}

export function DevicesView({ session: _session, query }: { session: Session; query: URLSearchParams }) {
  const q: Record<string, string> = {};
  for (const k of PARAMS) { const v = query.get(k); if (v) q[k] = v; }
  const summary = useApi<DeviceSummary>('/api/device-records/device-summary', {}, { refreshMs: 30_000 });
  const list = useApi<Page<Device>>('/api/device-records/all-devices', q);
  const filters = parseJson<Record<string, Record<string, string>>>(q.filterBy ?? null, {});
  const [name, setName] = useState(filters.Real_Name?.contains ?? '');
  const sortRaw = parseJson<Sort | Sort[] | null>(q.sortBy ?? null, null);
  const sort = Array.isArray(sortRaw) ? sortRaw[0] ?? null : sortRaw;
  const go = (change: Record<string, string | number | null>) => {
    const next = { ...q, ...change } as Record<string, string | number | null>;
    if (!('page' in change)) next.page = null;
    navigate(href('/devices', next));
  };
  const s = summary.data;
  return (
    <section class="view" aria-labelledby="devices-title">
      <div class="view-head">
        <h1 id="devices-title">Devices</h1>
        <StatusLine loading={summary.loading || list.loading} updatedAt={list.updatedAt} />
      </div>
      {summary.error && <ErrorState error={summary.error} onRetry={summary.reload} />}
      <div class="cards" aria-label="Summary">
        <Card testId="card-total" label="Devices" value={s ? s.totalDevices : '–'} />
        <Card testId="card-online" label="Online" value={s ? s.online : '–'} tone="ok" />
        <Card testId="card-offline" label={`Offline (no check-in for ${s?.offlineAfterHours ?? '…'} h)`} value={s ? s.offline : '–'} tone="warn" />
        <Card testId="card-never" label="Never checked in" value={s ? s.neverCheckedIn : '–'} />
        <Card testId="card-low-battery" label="Low battery" value={s ? s.lowBattery : '–'} tone="warn" />
        {s?.byActualOngoingFault.map((b) => (
          <Card key={b.ActualOngoingFault} testId={`card-state-${b.ActualOngoingFault}`} label={`State: ${b.ActualOngoingFault}`} value={b.count} tone={b.ActualOngoingFault === 'None' ? 'ok' : 'bad'} />
        ))}
      </div>
      <form class="filters" onSubmit={(e) => { e.preventDefault(); const f = { ...filters }; delete f.Real_Name; if (name) f.Real_Name = { contains: name }; go({ filterBy: Object.keys(f).length ? JSON.stringify(f) : null }); }}>
        <label>Name contains<input name="name" value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
        <button type="submit" class="button">Apply</button>
        <button type="button" class="button" onClick={() => { setName(''); navigate('/devices'); }}>Clear</button>
      </form>
      {list.error && <ErrorState error={list.error} onRetry={list.reload} />}
      {list.data && list.data.data.length === 0 && <EmptyState title="No devices match.">Clear the filter; if the list stays empty, ask an administrator which groups you belong to.</EmptyState>}
      {list.data && list.data.data.length > 0 && (
        <>
          <DataTable caption="Devices" columns={COLUMNS} rows={list.data.data} rowKey={(d) => d.IMEINumber} busy={list.loading}
            sort={sort ?? { field: 'IMEINumber', order: 'asc' }} onSort={(v) => go({ sortBy: JSON.stringify(v) })} />
          <Pager page={list.data.page} limit={list.data.limit} total={list.data.total} onPage={(p) => go({ page: p || null })} onLimit={(l) => go({ limit: l })} />
        </>
      )}
    </section>
  );
}
