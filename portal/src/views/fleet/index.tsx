// Fleet health (issue 44 point 2; docs/portal.md#views): the cards of GET /api/fleet/summary, the device list of
// GET /api/fleet/devices (sorted and paged by the server, downloadable as CSV with the same sort and filters),
// and, for a device opened from the list (?device=), its strip of days and assessment. The URL holds the list's
// query (page, limit, sortBy, filterBy) like the devices view, so a card's link is a shareable list.
import { useEffect, useRef } from 'preact/hooks';
import type { Page } from '../../api/types';
import type { Session } from '../../api/session';
import { EmptyState, ErrorState, StatusLine } from '../../components/states';
import { download } from '../../download';
import { DataTable, PagedRows, type Sort } from '../../components/table';
import { href, navigate } from '../../router';
import { useAction } from '../../use-action';
import { useApi } from '../../use-api';
import { parseJson } from '../data-log';
import { FleetCards, type ListLink } from './cards';
import { DevicePanel } from './device-panel';
import { fleetColumns } from './device-list';
import type { FleetDevice, FleetSummary } from './types';
import { SILENCE_TEXT } from './words';
import './fleet.css';

const LIST_PARAMS = ['page', 'limit', 'sortBy', 'filterBy'] as const;
const DEFAULT_SORT: Sort = { field: 'IMEINumber', order: 'asc' };

/** The list's filters in words, for the line above it. */
function filterText(filters: Record<string, { eq?: unknown }>): string {
  return Object.entries(filters).map(([field, f]) => {
    const v = String(f.eq ?? JSON.stringify(f));
    return field === 'silenceLabel' && v in SILENCE_TEXT ? `silent because: ${SILENCE_TEXT[v as keyof typeof SILENCE_TEXT]}` : `${field} ${v}`;
  }).join(', ');
}

export function FleetView({ session, query }: { session: Session; query: URLSearchParams }) {
  const q: Record<string, string> = {};
  for (const k of LIST_PARAMS) { const v = query.get(k); if (v) q[k] = v; }
  const device = query.get('device');
  // A device opened after the view came up (a click in the list) takes the focus; one in the URL it opened with does not.
  const mounted = useRef(false);
  useEffect(() => { mounted.current = true; }, []);
  const summary = useApi<FleetSummary>('/api/fleet/summary', {}, { refreshMs: 60_000 });
  const list = useApi<Page<FleetDevice>>('/api/fleet/devices', q);
  const filters = parseJson<Record<string, { eq?: unknown }>>(q.filterBy ?? null, {});
  const sortRaw = parseJson<Sort | Sort[] | null>(q.sortBy ?? null, null);
  const sort = Array.isArray(sortRaw) ? sortRaw[0] ?? null : sortRaw;
  const here = (change: Record<string, string | number | null>) => href('/fleet', { ...q, device, ...change });
  const go = (change: Record<string, string | number | null>) => navigate(here('page' in change ? change : { ...change, page: null }));
  const link: ListLink = ({ filter, sort: s }) => href('/fleet', {
    limit: q.limit,
    filterBy: filter === undefined ? q.filterBy : filter && Object.keys(filter).length ? JSON.stringify(filter) : null,
    sortBy: s ? JSON.stringify(s) : q.sortBy,
  });
  const open = (imei: string) => here({ device: imei });
  const csv = useAction(() => download('/api/fleet/devices.csv', { sortBy: q.sortBy, filterBy: q.filterBy }));
  const s = summary.data;
  return (
    <section class="view fleet" aria-labelledby="fleet-title">
      <div class="view-head">
        <h1 id="fleet-title">Fleet health</h1>
        <StatusLine loading={summary.loading || list.loading} updatedAt={list.updatedAt} timeZone={session.timeZone}
          extra={s ? `${s.devices.toLocaleString('en-US')} devices, ${s.assessed.toLocaleString('en-US')} assessed` : undefined} />
      </div>
      {summary.error && <ErrorState error={summary.error} onRetry={summary.reload} />}
      {s && <FleetCards s={s} link={link} />}
      <div class="filters fleet-list-head">
        <h2 class="inline-heading">Devices</h2>
        <span class="muted small" data-testid="list-filter">{Object.keys(filters).length ? `Showing ${filterText(filters)}.` : 'All devices in your reach.'}</span>
        {Object.keys(filters).length > 0 && <button type="button" class="button" onClick={() => go({ filterBy: null })}>Show all devices</button>}
        <button type="button" class="button" disabled={csv.busy} onClick={() => void csv.run()}>Download CSV</button>
      </div>
      {csv.error && <ErrorState error={csv.error} />}
      {list.error && <ErrorState error={list.error} onRetry={list.reload} />}
      {list.data && (
        <PagedRows total={list.data.total} rows={list.data.data.length} page={list.data.page} limit={list.data.limit} onPage={(p) => go({ page: p || null })} onLimit={(l) => go({ limit: l })}
          empty={<EmptyState title="No devices match.">Show all devices; if the list stays empty, ask an administrator which groups you belong to.</EmptyState>}>
          <DataTable caption="Fleet devices" columns={fleetColumns(open, session.timeZone)} rows={list.data.data} rowKey={(d) => d.IMEINumber} busy={list.loading}
            sort={sort ?? DEFAULT_SORT} onSort={(v) => go({ sortBy: JSON.stringify(v) })} />
        </PagedRows>
      )}
      {device && <DevicePanel key={device} imei={device} session={session} back={here({ device: null })} focus={mounted.current} />}
    </section>
  );
}
