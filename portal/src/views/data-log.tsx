// Data log (data-log): the URL's query string is the API's query (page, limit, sortBy, filterBy, from, to),
// so a link reproduces the view exactly; the form only rewrites the URL. Embedded in the device page it
// follows that page's one range control instead of showing its own.
import { useState } from 'preact/hooks';
import type { Session } from '../api/session';
import type { DeviceRecord, Page } from '../api/types';
import { DayRange } from '../components/day-range';
import { FaultBadge } from '../components/fault-badge';
import { powerText } from '../fault-state';
import { Link } from '../components/link';
import { EmptyState, ErrorState, StatusLine } from '../components/states';
import { DataTable, PagedRows, type Column, type Sort } from '../components/table';
import { faultStateChoices } from '../fault-state';
import { href, navigate } from '../router';
import { useApi } from '../use-api';

export const DATA_LOG_PARAMS = ['page', 'limit', 'sortBy', 'filterBy', 'from', 'to'] as const;

type Filters = Record<string, Record<string, string | number>>;

export function parseJson<T>(text: string | null, fallback: T): T {
  if (!text) return fallback;
  try { return JSON.parse(text) as T; } catch { return fallback; }
}

const COLUMNS: Column<DeviceRecord>[] = [
  { key: 'date', label: 'Check-in (device clock)', sortKey: 'date', wrap: true },
  { key: 'IMEINumber', label: 'IMEI', sortKey: 'IMEINumber', render: (r) => <Link href={`/devices/${encodeURIComponent(r.IMEINumber)}`}>{r.IMEINumber}</Link> },
  { key: 'CurrentName', label: 'Name', sortKey: 'CurrentName', wrap: true },
  { key: 'model', label: 'Model', sortKey: 'model' },
  { key: 'ActualOngoingFault', label: 'Actual fault', render: (r) => <FaultBadge value={r.ActualOngoingFault as string | null} /> },
  { key: 'Ongoing_fault', label: 'Reported fault' },
  { key: 'State', label: 'State' },
  { key: 'FaultType', label: 'Fault type' },
  { key: 'BatteryOrLine', label: 'Power', render: (r) => powerText(r.BatteryOrLine as string | number | null) ?? '—' },
  { key: 'AverageCurrent1m', label: 'Current 1 m (A)', sortKey: 'AverageCurrent1m', numeric: true },
  { key: 'BatteryMCU', label: 'Battery (V)', sortKey: 'BatteryMCU', numeric: true },
  { key: 'Temperature', label: 'Temp (°C)', sortKey: 'Temperature', numeric: true },
  { key: 'rssi', label: 'RSSI (dBm)', sortKey: 'rssi', numeric: true },
];

export function DataLogView({ session, query, path = '/api/device-records/data-log', base = '/data-log', embedded = false }: {
  session: Session; query: URLSearchParams; path?: string; base?: string; embedded?: boolean;
}) {
  const q: Record<string, string> = {};
  for (const k of DATA_LOG_PARAMS) { const v = query.get(k); if (v) q[k] = v; }
  const page = Number(q.page ?? 0) || 0;
  const limit = Number(q.limit ?? 50) || 50;
  const sortList = parseJson<Sort | Sort[] | null>(q.sortBy ?? null, null);
  const sort = Array.isArray(sortList) ? sortList[0] ?? null : sortList;
  const filters = parseJson<Filters>(q.filterBy ?? null, {});
  const res = useApi<Page<DeviceRecord>>(path, q);

  const go = (change: Record<string, string | number | null>) => {
    const next = { ...q, ...change } as Record<string, string | number | null>;
    if (!('page' in change)) next.page = null; // a new query starts at the first page
    navigate(href(base, next));
  };
  const setFilter = (field: string, op: string, value: string) => {
    const f: Filters = { ...filters };
    if (value === '') delete f[field];
    else f[field] = { [op]: value };
    go({ filterBy: Object.keys(f).length ? JSON.stringify(f) : null });
  };
  const [imei, setImei] = useState(String(filters.IMEINumber?.contains ?? ''));
  const [name, setName] = useState(String(filters.CurrentName?.contains ?? ''));
  // Every state the API can send (None / Fault when masked), not only those present now.
  const faultOptions = faultStateChoices(session.masked);
  const faultValue = String(filters.ActualOngoingFault?.eq ?? '');

  return (
    <section class="view" aria-labelledby="datalog-title">
      <div class="view-head">
        {embedded ? <h2 id="datalog-title">Check-ins</h2> : <h1 id="datalog-title">Data log</h1>}
        <StatusLine loading={res.loading} updatedAt={res.updatedAt} timeZone={session.timeZone} />
      </div>
      <form class="filters" onSubmit={(e) => { e.preventDefault(); const f: Filters = { ...filters }; delete f.IMEINumber; delete f.CurrentName; if (imei) f.IMEINumber = { contains: imei }; if (name) f.CurrentName = { contains: name }; go({ filterBy: Object.keys(f).length ? JSON.stringify(f) : null }); }}>
        {!embedded && <label>IMEI contains<input name="imei" value={imei} onInput={(e) => setImei(e.currentTarget.value)} inputMode="numeric" /></label>}
        {!embedded && <label>Name contains<input name="name" value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>}
        {!embedded && (
          <label>Actual fault
            <select name="fault" value={faultValue} onChange={(e) => setFilter('ActualOngoingFault', 'eq', e.currentTarget.value)}>
              <option value="">Any</option>
              {faultOptions.map((f) => <option key={f} value={f}>{f}</option>)}
            </select>
          </label>
        )}
        {!embedded && <DayRange value={{ from: q.from ?? null, to: q.to ?? null }} onChange={(r) => go({ from: r.from, to: r.to })} timeZone={session.timeZone} />}
        {!embedded && <button type="submit" class="button">Apply</button>}
        {!embedded && <button type="button" class="button" onClick={() => { setImei(''); setName(''); navigate(base); }}>Clear</button>}
      </form>
      {res.error && <ErrorState error={res.error} onRetry={res.reload} />}
      {res.data && (
        <PagedRows total={res.data.total} rows={res.data.data.length} page={page} limit={limit} onPage={(p) => go({ page: p || null })} onLimit={(l) => go({ limit: l })}
          empty={<EmptyState title="No check-ins match.">Widen the date range or clear the filters.</EmptyState>}>
          <DataTable caption="Device check-ins" columns={embedded ? COLUMNS.filter((c) => c.key !== 'IMEINumber') : COLUMNS} rows={res.data.data}
            rowKey={(r) => String(r.RecordID)} sort={sort ?? { field: 'date', order: 'desc' }} busy={res.loading}
            onSort={(s) => go({ sortBy: JSON.stringify(s) })} />
        </PagedRows>
      )}
    </section>
  );
}
