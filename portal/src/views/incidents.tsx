// Feeder incidents (GET /api/incidents): newest first, refreshed every 5 s, filtered by status in the URL;
// /incidents/<id> shows one with its faulted sections, tripped indicators and timeline, and opens the map on
// the section. Times to the second in the caller's zone, each saying whose clock it is (incident-steps.ts).
import type { Session } from '../api/session';
import { sectionText, type Incident, type IncidentDetail } from '../api/incidents';
import { Link } from '../components/link';
import { EmptyState, ErrorState, StatusLine } from '../components/states';
import { DataTable, PagedRows, type Column } from '../components/table';
import { incidentSteps } from '../incident-steps';
import { CLOCK_NAMES, isoToSecond } from '../time';
import { href, navigate } from '../router';
import { useApi } from '../use-api';
import { IncidentCause } from './incident-cause';
import { IncidentExport } from './incident-export';

const REFRESH_MS = 5_000;
const LIMIT = 50;
// "all" is a value of its own: an empty one would drop out of the URL and read back as the default, active.
const STATUSES = [['active', 'Active (not closed)'], ['all', 'All'], ['open', 'Open'], ['located', 'Located'], ['restored', 'Restored'], ['closed', 'Closed']] as const;

const when = isoToSecond;

function StatusBadge({ status }: { status: Incident['status'] }) {
  return <span class="badge incident-status" data-status={status}>{status}</span>;
}

function columns(zone: string): Column<Incident>[] {
  return [
    { key: 'id', label: 'Incident', render: (i) => <Link href={`/incidents/${i.id}`}>#{i.id}</Link> },
    { key: 'status', label: 'Status', render: (i) => <StatusBadge status={i.status} /> },
    { key: 'kind', label: 'Kind' },
    { key: 'powerLineName', label: 'Power line', render: (i) => i.powerLineName ?? i.powerLineId },
    { key: 'sections', label: 'Faulted section', render: (i) => (i.sections.length ? i.sections.map(sectionText).join('; ') : 'not located (no feeder topology covers its trips)') },
    { key: 'trippedDevices', label: 'Tripped' },
    { key: 'firstTripAt', label: `First trip (${CLOCK_NAMES.device})`, render: (i) => when(i.firstTripAt, zone) },
    { key: 'locatedAt', label: `Located (${CLOCK_NAMES.service})`, render: (i) => when(i.locatedAt, zone) },
    { key: 'restoredAt', label: `Restored (${CLOCK_NAMES.service})`, render: (i) => when(i.restoredAt, zone) },
    { key: 'cause', label: 'Cause', render: (i) => (i.cause ? `${i.cause}${i.majorEvent ? ' (major event)' : ''}` : '—') },
  ];
}

export function IncidentsView({ session, query }: { session: Session; query: URLSearchParams }) {
  const status = query.get('status') || 'active';
  const page = Number(query.get('page') ?? 0) || 0;
  const res = useApi<{ data: Incident[]; total: number }>('/api/incidents', { status: status === 'all' ? undefined : status, page, limit: LIMIT }, { refreshMs: REFRESH_MS });
  const go = (change: Record<string, string | number | null>) => navigate(href('/incidents', { status, page: null, ...change }));
  const rows = res.data?.data ?? [];
  return (
    <section class="view" aria-labelledby="incidents-title">
      <div class="view-head">
        <h1 id="incidents-title">Incidents</h1>
        <StatusLine loading={res.loading} updatedAt={res.updatedAt} timeZone={session.timeZone} extra={`refreshes every ${REFRESH_MS / 1000} s`} />
      </div>
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
        <label>Status
          <select name="status" value={status} onChange={(e) => go({ status: e.currentTarget.value })}>
            {STATUSES.map(([v, l]) => <option key={v} value={v}>{l}</option>)}
          </select>
        </label>
      </form>
      <IncidentExport />
      <p class="muted small">An incident groups the indicators of one power line that tripped close together. Times in {session.timeZone}. The export has every incident of the period (by first-trip day), one row each, with its cause.</p>
      {res.error && <ErrorState error={res.error} onRetry={res.reload} />}
      {res.data && (
        <PagedRows total={res.data.total} rows={rows.length} page={page} limit={LIMIT} onPage={(p) => go({ page: p || null })}
          empty={<EmptyState title="No incidents.">{status !== 'all' ? 'Choose "All" to see closed ones.' : 'Incidents appear within seconds of indicators tripping.'}</EmptyState>}>
          <DataTable caption="Feeder incidents, newest first" columns={columns(session.timeZone)} rows={rows} rowKey={(i) => String(i.id)} busy={res.loading} />
        </PagedRows>
      )}
    </section>
  );
}

function IncidentTimeline({ incident, zone }: { incident: IncidentDetail; zone: string }) {
  const { steps, deviceAheadMs } = incidentSteps(incident);
  return (
    <>
      <ol class="timeline" data-testid="incident-timeline">
        {steps.map((t, n) => <li key={n} data-clock={t.clock}><time>{when(t.at, zone)}</time> <span class="clock">({CLOCK_NAMES[t.clock]})</span> {t.what}</li>)}
      </ol>
      {deviceAheadMs >= 1000 && <p class="muted small" data-testid="clock-note">The first trip's device clock reads {Math.round(deviceAheadMs / 1000)} s later than the service clock that opened the incident: the device's clock runs ahead.</p>}
    </>
  );
}

export function IncidentView({ id, session }: { id: string; session: Session }) {
  const res = useApi<IncidentDetail>(`/api/incidents/${encodeURIComponent(id)}`, {}, { refreshMs: REFRESH_MS });
  const i = res.data;
  const zone = session.timeZone;
  return (
    <section class="view" aria-labelledby="incident-title">
      <div class="view-head">
        <h1 id="incident-title">Incident #{id}</h1>
        <StatusLine loading={res.loading} updatedAt={res.updatedAt} timeZone={zone} />
      </div>
      <p><Link href={href('/incidents', { status: 'all' })}>All incidents</Link>{i && i.sections.length > 0 && <> · <Link href={href('/map', { incident: i.id })}>Show the faulted section on the map</Link></>}</p>
      {res.error && <ErrorState error={res.error} onRetry={res.reload} />}
      {i && (
        <>
          <dl class="facts" data-testid="incident-facts">
            <dt>Status</dt><dd><StatusBadge status={i.status} /></dd>
            <dt>Kind</dt><dd>{i.kind}</dd>
            <dt>Power line</dt><dd>{i.powerLineName ?? i.powerLineId}</dd>
            <dt>First trip</dt><dd>{when(i.firstTripAt, zone)} <span class="clock">({CLOCK_NAMES.device})</span></dd>
            <dt>Opened</dt><dd>{when(i.openedAt, zone)} <span class="clock">({CLOCK_NAMES.service})</span></dd>
            <dt>Located</dt><dd>{when(i.locatedAt, zone)} <span class="clock">({CLOCK_NAMES.service})</span></dd>
            <dt>Restored</dt><dd>{when(i.restoredAt, zone)} <span class="clock">({CLOCK_NAMES.service})</span></dd>
            <dt>Closed</dt><dd>{when(i.closedAt, zone)} <span class="clock">({CLOCK_NAMES.service})</span></dd>
          </dl>
          <h2>Cause</h2>
          <IncidentCause incident={i} zone={zone} onSaved={res.reload} />
          <h2>Faulted section</h2>
          {i.sections.length === 0 ? <p>Not located: no feeder topology covers the tripped indicators.</p> : (
            <ul data-testid="incident-sections">{i.sections.map((s, n) => <li key={n}>{sectionText(s)}</li>)}</ul>
          )}
          <h2>Tripped indicators</h2>
          <DataTable caption="Tripped indicators, in trip order" rowKey={(d) => d.IMEINumber} rows={i.devices} columns={[
            { key: 'name', label: 'Device', render: (d) => <Link href={`/devices/${encodeURIComponent(d.IMEINumber)}`}>{d.name ?? d.IMEINumber}</Link> },
            { key: 'eventType', label: 'Event' },
            { key: 'trippedAt', label: `Tripped (${CLOCK_NAMES.device})`, render: (d) => when(d.trippedAt, zone) },
            { key: 'phase', label: 'Phase', render: (d) => d.phase ?? '—' },
            { key: 'section', label: 'Section below', render: (d) => d.section ?? '' },
          ]} />
          <h2>Timeline</h2>
          <IncidentTimeline incident={i} zone={zone} />
        </>
      )}
    </section>
  );
}
