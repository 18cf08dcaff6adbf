// Reliability (GET /api/reliability/lines and /sections; docs/incidents.md#reliability-analytics): power lines
// ranked by the incidents their indicators saw in a period of UTC days, with the trend against the previous
// period of the same length; a line opens (?powerLine=) to its sections with their counts, a map of them
// coloured by count, and its last incidents. The page says what the figures are not (IEEE 1366), as every
// answer's `note` does. A masked organisation's answers have no split by kind, and the page shows none.
import { lazy, Suspense } from 'preact/compat';
import type { Session } from '../../api/session';
import { DayRange } from '../../components/day-range';
import { Link } from '../../components/link';
import { EmptyState, ErrorState, StatusLine } from '../../components/states';
import { DataTable, type Column } from '../../components/table';
import { href, navigate } from '../../router';
import { isoToSecond } from '../../time';
import { useApi } from '../../use-api';
import { splitsKinds, type Counts, type Figures, type LastIncident, type LinesAnswer, type ReliabilityLine, type ReliabilitySection, type SectionsAnswer, type Trend } from './types';

// Leaflet is loaded only when a line is opened.
const SectionMap = lazy(() => import('./section-map').then((m) => ({ default: m.SectionMap })));

const ARROW = { up: '▲', down: '▼', same: '=' } as const;
function TrendCell({ trend }: { trend: Trend }) {
  const sign = trend.change > 0 ? '+' : '';
  return <span class="trend" data-direction={trend.direction} title={`previous period: ${trend.previousIncidents}`}>{ARROW[trend.direction]} {sign}{trend.change} (was {trend.previousIncidents})</span>;
}

const number = (v: number | null) => (v === null ? '—' : String(v));

function countColumns<T extends Counts & Figures & { trend: Trend }>(split: boolean): Column<T>[] {
  return [
    { key: 'incidents', label: 'Incidents' },
    ...(split ? [{ key: 'permanent', label: 'Permanent' }, { key: 'momentary', label: 'Momentary' }, { key: 'unknown', label: 'Unknown kind' }] as Column<T>[] : []),
    { key: 'trippedIndicators', label: 'Tripped indicators' },
    { key: 'trend', label: 'Trend', render: (r) => <TrendCell trend={r.trend} /> },
    { key: 'incidentsPer100Km', label: 'Per 100 km', render: (r) => number(r.incidentsPer100Km) },
    { key: 'customerIncidentsEstimate', label: 'Customers on faulted sections (estimate)', render: (r) => number(r.customerIncidentsEstimate) },
  ];
}

function lineColumns(split: boolean, query: Record<string, string | null>): Column<ReliabilityLine>[] {
  return [
    { key: 'rank', label: 'Rank' },
    { key: 'powerLineName', label: 'Power line', render: (l) => <Link href={href('/reliability', { ...query, powerLine: l.powerLineId })}>{l.powerLineName ?? l.powerLineId}</Link> },
    ...countColumns<ReliabilityLine>(split).slice(0, split ? 5 : 2),
    { key: 'sections', label: 'Sections with incidents' },
    { key: 'repeatingSections', label: 'Repeating sections' },
    ...countColumns<ReliabilityLine>(split).slice(split ? 5 : 2),
  ];
}

function sectionColumns(split: boolean): Column<ReliabilitySection>[] {
  return [
    { key: 'rank', label: 'Rank' },
    { key: 'label', label: 'Section' },
    { key: 'repeats', label: 'Repeats', render: (s) => (s.repeats ? 'yes' : 'no') },
    ...countColumns<ReliabilitySection>(split),
  ];
}

function LastIncidents({ incidents, zone }: { incidents: LastIncident[]; zone: string }) {
  if (incidents.length === 0) return <p class="muted">No incidents.</p>;
  return (
    <ul class="last-incidents" data-testid="last-incidents">
      {incidents.map((i) => <li key={i.id}><Link href={`/incidents/${i.id}`}>#{i.id}</Link> {isoToSecond(i.firstTripAt, zone)} · {i.kind} · {i.sections.join('; ') || 'not located'} · {i.trippedDevices} tripped</li>)}
    </ul>
  );
}

function LineSections({ session, line, range }: { session: Session; line: string; range: { from?: string; to?: string } }) {
  const res = useApi<SectionsAnswer>('/api/reliability/sections', { powerLine: line, ...range });
  const rows = res.data?.data ?? [];
  return (
    <section aria-labelledby="sections-title" data-testid="line-sections">
      <h2 id="sections-title">Sections of {line}</h2>
      {res.error && <ErrorState error={res.error} onRetry={res.reload} />}
      {res.data && (rows.length === 0
        ? <EmptyState title="No located incidents on this line in the period." />
        : <DataTable caption={`Sections of ${line}, most incidents first`} columns={sectionColumns(splitsKinds(rows))} rows={rows} rowKey={(s) => `${s.imei ?? ''}${s.label}`} busy={res.loading} />)}
      {res.data && res.data.total > rows.length && <p class="muted small" data-testid="sections-shown">The {rows.length} sections with the most incidents of {res.data.total}.</p>}
      {res.data && rows.length > 0 && <Suspense fallback={<p class="status-line">Loading the map…</p>}><SectionMap sections={rows} /></Suspense>}
      <h3>Last incidents</h3>
      {res.data && <LastIncidents incidents={res.data.lastIncidents} zone={session.timeZone} />}
    </section>
  );
}

export function ReliabilityView({ session, query }: { session: Session; query: URLSearchParams }) {
  const from = query.get('from');
  const to = query.get('to');
  const line = query.get('powerLine');
  const range = { ...(from ? { from } : {}), ...(to ? { to } : {}) };
  const res = useApi<LinesAnswer>('/api/reliability/lines', range);
  const rows = res.data?.data ?? [];
  const here = { from, to, powerLine: line };
  return (
    <section class="view" aria-labelledby="reliability-title">
      <div class="view-head">
        <h1 id="reliability-title">Reliability</h1>
        <StatusLine loading={res.loading} updatedAt={res.updatedAt} timeZone={session.timeZone} />
      </div>
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Period">
        <DayRange value={{ from, to }} onChange={(r) => navigate(href('/reliability', { ...here, from: r.from, to: r.to }))} timeZone="UTC" note="UTC days, both included; default the last 30 days." />
      </form>
      {res.data && (
        <p class="muted small" data-testid="period">
          {res.data.period.from} to {res.data.period.to} ({res.data.period.days} days, UTC), compared with {res.data.previousPeriod.from} to {res.data.previousPeriod.to}.
        </p>
      )}
      <p class="notice" data-testid="reliability-note">
        What this is: incidents seen by the line's fault indicators, counted per power line and faulted section. What it is not: an indicator
        incident is not a customer interruption as IEEE 1366 defines one, and no figure here is a MAIFI, SAIFI or SAIDI. The customer figure
        is an estimate observed by indicators (customers of the faulted sections, from the import).
      </p>
      {res.error && <ErrorState error={res.error} onRetry={res.reload} />}
      {res.data && (rows.length === 0
        ? <EmptyState title="No incidents in this period or the one before." />
        : <DataTable caption="Power lines, most incidents first" columns={lineColumns(splitsKinds(rows), here)} rows={rows} rowKey={(l) => l.powerLineId} busy={res.loading} />)}
      {line && <LineSections session={session} line={line} range={range} />}
    </section>
  );
}
