// Alarms (GET /api/alarms, issue 20): the alarms of the devices in the user's reach, newest first, refreshed
// every 5 s, filtered by state in the URL (active: neither acknowledged nor cleared). Every user may
// acknowledge an alarm in reach, as the API allows; acknowledging stops its escalation along the roster.
import { useState } from 'preact/hooks';
import { apiPost, type ApiError } from '../api/client';
import type { Acknowledged, Alarm } from '../api/alarms';
import type { Session } from '../api/session';
import { Link } from '../components/link';
import { EmptyState, ErrorState, StatusLine } from '../components/states';
import { DataTable, type Column } from '../components/table';
import { CLOCK_NAMES, isoToSecond } from '../time';
import { href, navigate } from '../router';
import { useAction } from '../use-action';
import { useApi } from '../use-api';

const REFRESH_MS = 5_000;
const LIMIT = 200;
const STATES = [['active', 'Active (not acknowledged)'], ['acknowledged', 'Acknowledged (not cleared)'], ['cleared', 'Cleared'], ['all', 'All']] as const;

// Alarm times are the service's: when it raised, saw acknowledged or cleared them (alarms/raise.ts).
const when = isoToSecond;

function AckButton({ alarm, onDone }: { alarm: Alarm; onDone: (error: ApiError | null) => void }) {
  const ack = useAction(() => apiPost<Acknowledged>(`/api/alarms/${alarm.id}/acknowledge`, {}), onDone);
  return (
    <button type="button" class="button" disabled={ack.busy} onClick={() => void ack.run()} aria-label={`Acknowledge alarm ${alarm.id}`}>
      {ack.busy ? 'Acknowledging…' : 'Acknowledge'}
    </button>
  );
}

function columns(zone: string, onAck: (e: ApiError | null) => void): Column<Alarm>[] {
  return [
    { key: 'state', label: 'State', render: (a) => <span class="badge alarm-state" data-state={a.state}>{a.state}</span> },
    { key: 'label', label: 'Alarm', render: (a) => a.label ?? a.kind },
    { key: 'class', label: 'Class', render: (a) => a.class ?? '—' },
    { key: 'device', label: 'Device', render: (a) => <Link href={`/devices/${encodeURIComponent(a.IMEINumber)}`}>{a.Real_Name ?? a.IMEINumber}</Link> },
    { key: 'PowerLineID', label: 'Power line', render: (a) => a.PowerLineID ?? '—' },
    { key: 'raised_at', label: `Raised (${CLOCK_NAMES.service})`, render: (a) => when(a.raised_at, zone) },
    { key: 'acknowledged', label: `Acknowledged (${CLOCK_NAMES.service})`, render: (a) => (a.acknowledged_at ? <>{when(a.acknowledged_at, zone)}<br /><span class="small">by {a.acknowledged_by ?? 'unknown'}</span></> : '—') },
    { key: 'cleared_at', label: `Cleared (${CLOCK_NAMES.service})`, render: (a) => when(a.cleared_at, zone) },
    { key: 'action', label: 'Action', render: (a) => (a.state === 'active' ? <AckButton alarm={a} onDone={onAck} /> : '') },
  ];
}

export function AlarmsView({ session, query }: { session: Session; query: URLSearchParams }) {
  const state = query.get('state') ?? 'active';
  const res = useApi<{ data: Alarm[] }>('/api/alarms', { state, limit: LIMIT }, { refreshMs: REFRESH_MS });
  const [ackError, setAckError] = useState<ApiError | null>(null);
  const onAck = (e: ApiError | null) => { setAckError(e); res.reload(); };
  const rows = res.data?.data ?? [];
  return (
    <section class="view" aria-labelledby="alarms-title">
      <div class="view-head">
        <h1 id="alarms-title">Alarms</h1>
        <StatusLine loading={res.loading} updatedAt={res.updatedAt} timeZone={session.timeZone} extra={`refreshes every ${REFRESH_MS / 1000} s`} />
      </div>
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
        <label>State
          <select name="state" value={state} onChange={(e) => navigate(href('/alarms', { state: e.currentTarget.value }))}>
            {STATES.map(([v, l]) => <option key={v} value={v}>{l}</option>)}
          </select>
        </label>
      </form>
      <p class="muted small">An alarm stays active until someone acknowledges it or its condition clears. Acknowledging an operations alarm stops its escalation to the next person on the roster; the recipients still hear when it clears.</p>
      {ackError && <ErrorState error={ackError} />}
      {res.error && <ErrorState error={res.error} onRetry={res.reload} />}
      {res.data && (rows.length === 0
        ? <EmptyState title="No alarms.">{state === 'active' ? 'Choose another state to see acknowledged or cleared ones.' : ''}</EmptyState>
        : <DataTable caption={`Alarms (${state}), newest first${rows.length === LIMIT ? `, the latest ${LIMIT}` : ''}`} columns={columns(session.timeZone, onAck)} rows={rows} rowKey={(a) => String(a.id)} busy={res.loading} />)}
    </section>
  );
}
