// Critical faults (critical-data) for triage: newest first, refreshed every 5 s in place (same rows, keyed by
// source and id), so the reader's scroll position and focus stay. Filters by event type, power line and days
// live in the URL (a shared link shows the same list); model changes have their own choice and are not mixed
// into the faults by default. Severity is shown by colour and word, and the device's state now sits next to
// the event; headings, times and long texts wrap and the IMEI sits under the device's name, so the table
// fits a 1,440 px screen.
import { useRef } from 'preact/hooks';
import type { Session } from '../api/session';
import type { CriticalEvent, MapDevice, Page } from '../api/types';
import { DayRange } from '../components/day-range';
import { FaultBadge } from '../components/fault-badge';
import { Link } from '../components/link';
import { EVENT_CURRENT_COLUMNS, EVENT_HEAD_COLUMNS } from '../components/event-columns';
import { EmptyState, ErrorState, StatusLine } from '../components/states';
import { DataTable, PagedRows, type Column } from '../components/table';
import { eventTypeChoices, MODEL_CHANGE, SEVERITY_COLOURS, severityLegend, severityOf } from '../event-triage';
import { powerLinesOf } from '../power-lines';
import { href, navigate } from '../router';
import { useApi } from '../use-api';

export const REFRESH_MS = 5_000;
const LIMIT = 50;
const PARAMS = ['type', 'line', 'from', 'to', 'page'] as const;
const rowKey = (e: CriticalEvent) => `${e.Source}:${e.SourceID}`;

function currents(e: CriticalEvent) {
  if (e.Source === 'dm1_event') return [e.PhaseAEvent, e.PhaseBEvent, e.PhaseCEvent].map((p, i) => `${'ABC'[i]}: ${p ?? '—'}`).join(' · ');
  return null;
}

function SeverityBadge({ eventType }: { eventType: string }) {
  const s = severityOf(eventType);
  return <span class="badge severity" data-severity={s}><span class="swatch" style={{ background: SEVERITY_COLOURS[s] }} aria-hidden="true" />{s}</span>;
}

function columns(now: Map<string, MapDevice>): Column<CriticalEvent>[] {
  const [time, type] = EVENT_HEAD_COLUMNS;
  return [
    { key: 'severity', label: 'Severity', render: (e) => <SeverityBadge eventType={e.EventType} /> },
    time!, type!,
    // The IMEI under the name (a column of its own pushed the table past 1,440 px).
    { key: 'Real_Name', label: 'Device', wrap: true, render: (e) => <><Link href={`/devices/${encodeURIComponent(e.IMEINumber)}`}>{e.Real_Name ?? e.IMEINumber}</Link><br /><span class="small muted" data-imei>{e.IMEINumber}</span></> },
    { key: 'now', label: 'Device state now', render: (e) => <FaultBadge value={now.get(e.IMEINumber)?.ActualOngoingFault ?? null} /> },
    { key: 'PowerLineName', label: 'Power line', wrap: true },
    ...EVENT_CURRENT_COLUMNS,
    { key: 'ActualOngoingFault', label: 'State at the event', render: (e) => <FaultBadge value={e.ActualOngoingFault} /> },
    { key: 'detail', label: 'Detail', wrap: true, render: (e) => (e.EventType === MODEL_CHANGE ? `${e.oldModel ?? '?'} → ${e.newModel ?? '?'}` : currents(e) ?? '') },
  ];
}

export function CriticalView({ session, query }: { session: Session; query: URLSearchParams }) {
  const q: Record<string, string> = {};
  for (const k of PARAMS) { const v = query.get(k); if (v) q[k] = v; }
  const type = q.type ?? 'Fault';
  const page = Number(q.page ?? 0) || 0;
  const filterBy = JSON.stringify({ EventType: { eq: type }, ...(q.line ? { PowerLineID: { eq: q.line } } : {}) });
  const res = useApi<Page<CriticalEvent>>('/api/device-records/critical-data', { page, limit: LIMIT, filterBy, from: q.from, to: q.to }, { refreshMs: REFRESH_MS });
  // The devices' state now, and the power lines to choose from (the map's answer, cached a second by the API).
  const devices = useApi<{ data: MapDevice[] }>('/api/device-records/map-data', {}, { refreshMs: 30_000 });
  const now = new Map((devices.data?.data ?? []).map((d) => [d.IMEINumber, d]));
  const lines = powerLinesOf(devices.data?.data ?? []);
  const go = (change: Record<string, string | number | null>) => {
    const next = { ...q, ...change } as Record<string, string | number | null>;
    if (!('page' in change)) next.page = null;
    navigate(href('/critical', next));
  };
  const rows = res.data?.data ?? [];
  // Rows that arrived since the first answer of these filters are counted (not moved), so a reader sees what is new.
  const seen = useRef<{ filters: string; keys: Set<string> } | null>(null);
  const filters = JSON.stringify([filterBy, q.from, q.to, page]);
  let fresh = 0;
  if (res.data) {
    if (seen.current?.filters !== filters) seen.current = { filters, keys: new Set(rows.map(rowKey)) };
    else for (const r of rows) if (!seen.current.keys.has(rowKey(r))) fresh++;
  }
  return (
    <section class="view" aria-labelledby="critical-title">
      <div class="view-head">
        <h1 id="critical-title">Critical faults</h1>
        <StatusLine loading={res.loading} updatedAt={res.updatedAt} timeZone={session.timeZone} extra={`refreshes every ${REFRESH_MS / 1000} s${fresh ? ` · ${fresh} new` : ''}`} />
      </div>
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
        <label>Event type
          <select name="type" value={type} onChange={(e) => go({ type: e.currentTarget.value === 'Fault' ? null : e.currentTarget.value })}>
            {eventTypeChoices(session.masked).map((c) => <option key={c.value} value={c.value}>{c.label}</option>)}
          </select>
        </label>
        <label>Power line
          <select name="line" value={q.line ?? ''} onChange={(e) => go({ line: e.currentTarget.value || null })}>
            <option value="">All power lines</option>
            {lines.map(([id, name]) => <option key={id} value={id}>{name}</option>)}
          </select>
        </label>
        <DayRange value={{ from: q.from ?? null, to: q.to ?? null }} onChange={(r) => go({ from: r.from, to: r.to })} timeZone={session.timeZone} />
      </form>
      {/* A masked organisation is not told which class ranks how (docs/decisions.md#masking): every fault is Critical. */}
      <p class="muted small">{session.masked
        ? 'Severity: Critical for every fault event (this organisation masks fault details).'
        : `Severity: ${severityLegend()}.`} “(empty)”: a value the server clears.</p>
      {res.error && <ErrorState error={res.error} onRetry={res.reload} />}
      {res.data && (
        <PagedRows total={res.data.total} rows={rows.length} page={page} limit={LIMIT} onPage={(p) => go({ page: p || null })}
          empty={<EmptyState title={type === MODEL_CHANGE ? 'No model changes.' : 'No critical faults.'}>{q.line || q.from || q.to ? 'Widen the filters.' : 'Fault events appear here within seconds of a device reporting them.'}</EmptyState>}>
          <DataTable caption="Critical fault events, newest first" columns={columns(now)} rows={rows} rowKey={rowKey} busy={res.loading} />
        </PagedRows>
      )}
    </section>
  );
}
