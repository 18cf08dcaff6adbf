// One device (device-information, its data-log, events and load-history). One range control: from / to in
// the URL choose the range of the chart, the events and the check-ins alike. "Show on map" opens the map on it.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Session } from '../api/session';
import type { DeviceEvent, DeviceInformation, LoadHistoryRow, Page } from '../api/types';
import { DayRange } from '../components/day-range';
import { FaultBadge } from '../components/fault-badge';
import { Link } from '../components/link';
import { EVENT_CURRENT_COLUMNS, EVENT_HEAD_COLUMNS } from '../components/event-columns';
import { EmptyState, ErrorState, StatusLine } from '../components/states';
import { DataTable, PagedRows, type Column } from '../components/table';
import { powerText } from '../fault-state';
import { href, navigate } from '../router';
import { displayTimeMs } from '../time';
import { useApi } from '../use-api';
import { DataLogView } from './data-log';
import { TestFaultPanel } from '../components/test-fault';

const HOURS = Array.from({ length: 24 }, (_, h) => `AverageCurrentH${h}`);

const EVENT_COLUMNS: Column<DeviceEvent>[] = [
  ...EVENT_HEAD_COLUMNS,
  { key: 'EventID', label: 'Event ID', numeric: true },
  { key: 'EventTable', label: 'Table' },
  ...EVENT_CURRENT_COLUMNS,
  { key: 'phases', label: 'Phases (DM1)', render: (e) => (e.EventTable === 'dm1' ? [e.PhaseAEvent, e.PhaseBEvent, e.PhaseCEvent].map((p, i) => `${'ABC'[i]}: ${p ?? '—'}`).join(' · ') : '') },
  { key: 'PacketTimestamp', label: 'Check-in' },
];

function Details({ d }: { d: DeviceInformation }) {
  const r = d.latestRecord;
  const items: [string, unknown][] = [
    ['IMEI', d.IMEINumber], ['Serial', d.serialNumber], ['Power line', d.PowerLineName ?? d.PowerLineID], ['Groups', d.groups?.join(', ')],
    ['Location', d.Lat !== null && d.Long !== null ? `${d.Lat}, ${d.Long}` : null], ['Last check-in', d.LastCheckInTime],
    ['Model', r?.model], ['Firmware', r?.version], ['Power', powerText((r?.BatteryOrLine as string | number | null | undefined) ?? null)], ['Battery (V)', r?.BatteryMCU],
    ['Current 1 m (A)', r?.AverageCurrent1m], ['Temperature (°C)', r?.Temperature], ['RSSI (dBm)', r?.rssi], ['State', r?.State], ['Fault type', r?.FaultType],
  ];
  return (
    <dl class="details" data-testid="device-details">
      <div><dt>Actual fault</dt><dd><FaultBadge value={(r?.ActualOngoingFault as string | null) ?? null} /></dd></div>
      <div><dt>Reported fault</dt><dd>{String(r?.Ongoing_fault ?? '—')}</dd></div>
      {items.map(([k, v]) => <div key={k}><dt>{k}</dt><dd>{v === null || v === undefined || v === '' ? '—' : String(v)}</dd></div>)}
    </dl>
  );
}

function Charts({ rows, timeZone }: { rows: LoadHistoryRow[]; timeZone: string }) {
  const peakEl = useRef<HTMLDivElement>(null);
  const hourEl = useRef<HTMLDivElement>(null);
  const [selected, setSelected] = useState(0);
  const row = rows[selected] ?? rows[0];
  useEffect(() => {
    let disposed = false;
    const plots: { destroy(): void }[] = [];
    void import('../components/current-chart').then(({ peakChart, hourlyChart }) => {
      if (disposed || !peakEl.current || !hourEl.current) return;
      const width = Math.max(280, Math.min(peakEl.current.clientWidth, 1200));
      const points = rows.map((r) => ({ t: displayTimeMs(r.PacketTimestamp, timeZone) ?? 0, v: r.PeakCurrent })).sort((a, b) => a.t - b.t);
      plots.push(peakChart(peakEl.current, points, timeZone, width));
      if (row) plots.push(hourlyChart(hourEl.current, HOURS.map((h) => (row[h] as number | null) ?? null), `Hourly average (A) of the check-in of ${row.PacketTimestamp} (${timeZone})`, width));
      peakEl.current.dataset.ready = 'true';
    });
    return () => { disposed = true; for (const p of plots) p.destroy(); };
  }, [rows, row, timeZone]);
  return (
    <div class="charts">
      <h3>Peak current per check-in (A), times in {timeZone}</h3>
      <p class="muted small">The line breaks where the device was silent for more than twice its usual check-in interval.</p>
      <div ref={peakEl} class="chart" data-testid="peak-chart" role="img" aria-label={`Peak current of ${rows.length} check-ins`} />
      <div class="chart-head">
        <h3>24 hourly averages (A)</h3>
        <label class="inline">Check-in ({timeZone})
          <select value={String(selected)} onChange={(e) => setSelected(Number(e.currentTarget.value))}>
            {rows.map((r, i) => <option key={r.PacketTimestamp} value={i}>{r.PacketTimestamp}</option>)}
          </select>
        </label>
      </div>
      <div ref={hourEl} class="chart" data-testid="hourly-chart" role="img" aria-label="24 hourly average currents of the chosen check-in" />
    </div>
  );
}

export function DeviceView({ imei, session, query }: { imei: string; session: Session; query: URLSearchParams }) {
  const base = `/devices/${encodeURIComponent(imei)}`;
  const from = query.get('from') ?? undefined;
  const to = query.get('to') ?? undefined;
  const [eventPage, setEventPage] = useState(0);
  const info = useApi<DeviceInformation>(`/api/device-records/device-information/${encodeURIComponent(imei)}`, {}, { refreshMs: 30_000 });
  const load = useApi<Page<LoadHistoryRow>>(`/api/device-records/device-information/load-history/${encodeURIComponent(imei)}`, { from, to, limit: 500 });
  const events = useApi<Page<DeviceEvent>>(`/api/device-records/device-information/events/${encodeURIComponent(imei)}`, { from, to, page: eventPage, limit: 25 });
  const setRange = (range: { from: string | null; to: string | null }) => navigate(href(base, range));
  // Whichever of the device's requests learns first that it is out of reach decides the page.
  const notFound = [info, load, events].find((r) => r.error?.code === 'NOT_FOUND')?.error;
  if (notFound) {
    return <section class="view"><h1>Device {imei}</h1><ErrorState error={notFound} /><p><Link href="/devices">Back to the device list</Link></p></section>;
  }
  const d = info.data;
  return (
    <section class="view" aria-labelledby="device-title">
      <div class="view-head">
        <h1 id="device-title">{d ? d.Real_Name ?? d.IMEINumber : `Device ${imei}`}</h1>
        <StatusLine loading={info.loading} updatedAt={info.updatedAt} timeZone={session.timeZone} />
      </div>
      <p><Link href={href('/map', { device: imei })}>Show on map</Link></p>
      {info.error && <ErrorState error={info.error} onRetry={info.reload} />}
      {d ? <Details d={d} /> : <div class="details placeholder" />}
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Range">
        <DayRange value={{ from: from ?? null, to: to ?? null }} onChange={setRange} timeZone={session.timeZone} note="for the chart (up to 500 check-ins), the events and the check-ins" />
        <button type="button" class="button" onClick={() => navigate(base)}>All time</button>
      </form>
      <h2>Load history</h2>
      {load.error && <ErrorState error={load.error} onRetry={load.reload} />}
      {load.data && load.data.data.length === 0 && <EmptyState title="No load history in this range.">Choose a wider range, or wait for the device's next check-in with currents.</EmptyState>}
      {load.data && load.data.data.length > 0 && <Charts rows={load.data.data} timeZone={session.timeZone} />}
      <h2>Events</h2>
      {events.error && <ErrorState error={events.error} onRetry={events.reload} />}
      {events.data && (
        <PagedRows total={events.data.total} rows={events.data.data.length} page={eventPage} limit={25} onPage={setEventPage}
          empty={<EmptyState title="No events in this range.">Choose a wider range.</EmptyState>}>
          <DataTable caption="Events of this device" columns={EVENT_COLUMNS} rows={events.data.data} rowKey={(e) => `${e.EventTable}:${e.Event_Record_ID}`} busy={events.loading} />
        </PagedRows>
      )}
      {session.role === 'admin' && <TestFaultPanel imei={imei} timeZone={session.timeZone} />}
      <DataLogView session={session} query={query} path={`/api/device-records/device-information/data-log/${encodeURIComponent(imei)}`} base={base} embedded />
    </section>
  );
}
