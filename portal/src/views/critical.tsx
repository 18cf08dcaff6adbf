// Critical faults (critical-data): newest first, refreshed every 5 s in place (same rows, keyed by source
// and id), so the reader's scroll position and focus stay. The spec 3.4 fields are columns of their own.
import { useRef, useState } from 'preact/hooks';
import type { Session } from '../api/session';
import type { CriticalEvent, Page } from '../api/types';
import { FaultBadge } from '../components/fault-badge';
import { Link } from '../components/link';
import { EVENT_CURRENT_COLUMNS, EVENT_HEAD_COLUMNS } from '../components/event-columns';
import { EmptyState, ErrorState, StatusLine } from '../components/states';
import { DataTable, Pager, type Column } from '../components/table';
import { useApi } from '../use-api';

export const REFRESH_MS = 5_000;
const LIMIT = 50;
const rowKey = (e: CriticalEvent) => `${e.Source}:${e.SourceID}`;

function currents(e: CriticalEvent) {
  if (e.Source === 'dm1_event') return [e.PhaseAEvent, e.PhaseBEvent, e.PhaseCEvent].map((p, i) => `${'ABC'[i]}: ${p ?? '—'}`).join(' · ');
  return null;
}

const COLUMNS: Column<CriticalEvent>[] = [
  ...EVENT_HEAD_COLUMNS,
  { key: 'Real_Name', label: 'Device', render: (e) => <Link href={`/devices/${encodeURIComponent(e.IMEINumber)}`}>{e.Real_Name ?? e.IMEINumber}</Link> },
  { key: 'IMEINumber', label: 'IMEI' },
  { key: 'PowerLineName', label: 'Power line' },
  ...EVENT_CURRENT_COLUMNS,
  { key: 'ActualOngoingFault', label: 'State', render: (e) => <FaultBadge value={e.ActualOngoingFault} /> },
  { key: 'detail', label: 'Detail', render: (e) => (e.EventType === 'Model Change' ? `${e.oldModel ?? '?'} → ${e.newModel ?? '?'}` : currents(e) ?? '') },
];

export function CriticalView({ session: _session }: { session: Session }) {
  const [page, setPage] = useState(0);
  const res = useApi<Page<CriticalEvent>>('/api/device-records/critical-data', { page, limit: LIMIT }, { refreshMs: REFRESH_MS });
  const seen = useRef<Set<string> | null>(null);
  const rows = res.data?.data ?? [];
  // Rows that arrived since the first answer are marked (not moved), so a reader sees what is new.
  let fresh = 0;
  if (res.data) {
    if (!seen.current) seen.current = new Set(rows.map(rowKey));
    else for (const r of rows) if (!seen.current.has(rowKey(r))) fresh++;
  }
  return (
    <section class="view" aria-labelledby="critical-title">
      <div class="view-head">
        <h1 id="critical-title">Critical faults</h1>
        <StatusLine loading={res.loading} updatedAt={res.updatedAt} extra={`refreshes every ${REFRESH_MS / 1000} s${fresh ? ` · ${fresh} new` : ''}`} />
      </div>
      <p class="muted">Fault events and model changes of your devices, newest first. Reset threshold and post-event reference are computed by the server (spec 3.4); “(empty)” marks a value the server clears.</p>
      {res.error && <ErrorState error={res.error} onRetry={res.reload} />}
      {res.data && rows.length === 0 && <EmptyState title="No critical faults.">Fault events appear here within seconds of a device reporting them.</EmptyState>}
      {rows.length > 0 && (
        <>
          <DataTable caption="Critical fault events, newest first" columns={COLUMNS} rows={rows} rowKey={rowKey} busy={res.loading} />
          <Pager page={page} limit={LIMIT} total={res.data!.total} onPage={setPage} />
        </>
      )}
    </section>
  );
}
