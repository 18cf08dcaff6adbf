// Indicator audit (GET /api/indicator-audit/findings): the indicators whose incidents contradict the imported
// topology, "likely failed or mis-set indicator" or "likely topology or phase label error", each with the
// incidents that say so, linked. An organisation admin dismisses one with a reason (POST .../dismiss). The rule:
// docs/decisions.md#indicator-audit.
import { useState } from 'preact/hooks';
import { apiPost, type ApiError } from '../../api/client';
import { useAction } from '../../use-action';
import type { Session } from '../../api/session';
import { Link } from '../../components/link';
import { EmptyState, ErrorState, StatusLine } from '../../components/states';
import { DataTable, type Column } from '../../components/table';
import { CLOCK_NAMES, isoToSecond } from '../../time';
import { href, navigate } from '../../router';
import { useApi } from '../../use-api';

export interface Finding {
  id: number; IMEINumber: string; name: string | null; phase: string | null; powerLineId: string; powerLineName: string | null;
  kind: 'failed-or-mis-set' | 'topology-or-phase'; title: string;
  /** Left out for an organisation that masks fault details, with agreement and evidence (they would name its permanent incidents). */
  contradictions?: number; considered?: number;
  raisedAt: string; updatedAt: string; dismissed: { at: string; by: string; reason: string } | null;
  agreement?: { confirmed: number; missed: number; unconfirmed: number };
  evidence?: { incidentId: number; verdict: 'missed' | 'unconfirmed'; otherPhase: boolean; firstTripAt: string | null }[];
}

const REFRESH_MS = 30_000;
const STATES = [['open', 'Open'], ['dismissed', 'Dismissed'], ['all', 'All']] as const;
const VERDICT_TEXT = { missed: 'silent between two that tripped', unconfirmed: 'tripped with no neighbour confirming' } as const;

function Evidence({ f }: { f: Finding }) {
  return (
    <ul class="evidence" data-testid="finding-evidence">
      {(f.evidence ?? []).map((e) => (
        <li key={e.incidentId}>
          <Link href={`/incidents/${e.incidentId}`}>#{e.incidentId}</Link> {VERDICT_TEXT[e.verdict]}{e.otherPhase ? ', co-tripped only with another phase' : ''}
        </li>
      ))}
    </ul>
  );
}

function Dismiss({ f, onDone }: { f: Finding; onDone: (err: ApiError | null) => void }) {
  const [reason, setReason] = useState('');
  const dismiss = useAction(() => apiPost(`/api/indicator-audit/findings/${f.id}/dismiss`, { reason }), onDone);
  return (
    <form class="inline-form" onSubmit={(e) => { e.preventDefault(); void dismiss.run(); }} aria-label={`Dismiss finding ${f.id}`}>
      <input type="text" required maxLength={500} size={18} placeholder="Reason" value={reason} onInput={(e) => setReason(e.currentTarget.value)} aria-label="Reason" />
      <button type="submit" class="button" disabled={dismiss.busy || reason.trim() === ''}>{dismiss.busy ? 'Dismissing…' : 'Dismiss'}</button>
    </form>
  );
}

function columns(session: Session, reload: () => void, setError: (e: ApiError | null) => void): Column<Finding>[] {
  const when = (iso: string | null) => isoToSecond(iso, session.timeZone);
  return [
    { key: 'title', label: 'Finding' },
    { key: 'name', label: 'Indicator', render: (f) => <Link href={`/devices/${encodeURIComponent(f.IMEINumber)}`}>{f.name ?? f.IMEINumber}</Link> },
    { key: 'phase', label: 'Phase (imported)', render: (f) => f.phase ?? '—' },
    { key: 'powerLineName', label: 'Power line', render: (f) => f.powerLineName ?? f.powerLineId },
    { key: 'contradictions', label: 'Contradicting', render: (f) => (f.contradictions === undefined ? '—' : `${f.contradictions} of the last ${f.considered} incidents`) },
    { key: 'evidence', label: 'Evidence', render: (f) => <Evidence f={f} /> },
    { key: 'raisedAt', label: `Raised (${CLOCK_NAMES.service})`, render: (f) => when(f.raisedAt) },
    {
      key: 'dismissed', label: 'Dismissed',
      render: (f) => (f.dismissed ? `${when(f.dismissed.at)} by ${f.dismissed.by}: ${f.dismissed.reason}`
        : session.role === 'admin' ? <Dismiss f={f} onDone={(err) => { setError(err); reload(); }} /> : ''),
    },
  ];
}

export function IndicatorAuditView({ session, query }: { session: Session; query: URLSearchParams }) {
  const state = query.get('state') || 'open';
  const res = useApi<{ data: Finding[] }>('/api/indicator-audit/findings', { state }, { refreshMs: REFRESH_MS });
  const [actionError, setActionError] = useState<ApiError | null>(null);
  const rows = res.data?.data ?? [];
  return (
    <section class="view" aria-labelledby="audit-title">
      <div class="view-head">
        <h1 id="audit-title">Indicator audit</h1>
        <StatusLine loading={res.loading} updatedAt={res.updatedAt} timeZone={session.timeZone} />
      </div>
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
        <label>Findings
          <select name="state" value={state} onChange={(e) => navigate(href('/indicator-audit', { state: e.currentTarget.value }))}>
            {STATES.map(([v, l]) => <option key={v} value={v}>{l}</option>)}
          </select>
        </label>
      </form>
      <p class="muted small">
        Each closed incident that located a lasting fault is evidence about every indicator of its power line: one that stayed silent between
        two that tripped, or tripped with no neighbour confirming it, contradicts the imported topology. An indicator is listed when most of
        its recent incidents contradict it. Offline indicators, incidents that cleared by themselves and test faults are not counted.
      </p>
      {actionError && <ErrorState error={actionError} />}
      {res.error && <ErrorState error={res.error} onRetry={res.reload} />}
      {res.data && (rows.length === 0
        ? <EmptyState title="No findings.">{state === 'open' ? 'Every indicator agrees with its incidents so far.' : 'None in this state.'}</EmptyState>
        : <DataTable caption="Indicators and topology that incidents contradict, newest first" columns={columns(session, res.reload, setActionError)} rows={rows} rowKey={(f) => String(f.id)} busy={res.loading} />)}
    </section>
  );
}
