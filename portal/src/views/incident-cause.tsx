// The cause of an incident on its page (docs/reliability-export.md#causes): the cause now, a form to record
// one from the organisation's list (GET /api/incident-causes) with the major-event flag and a note, and the
// causes recorded, newest first, with who and when: the incident's newest page, older pages on request
// (GET /api/incidents/<id>/cause-history). Every user who reads the incident may record one.
import { useEffect, useState } from 'preact/hooks';
import { apiGet, apiPost, type ApiError } from '../api/client';
import type { CauseChange, CauseHistoryPage, CauseList, IncidentDetail } from '../api/incidents';
import { ErrorState } from '../components/states';
import { DataTable } from '../components/table';
import { CLOCK_NAMES, isoToSecond } from '../time';
import { useApi } from '../use-api';

export function IncidentCause({ incident, zone, onSaved }: { incident: IncidentDetail; zone: string; onSaved: () => void }) {
  const list = useApi<CauseList>('/api/incident-causes');
  const [cause, setCause] = useState('');
  const [majorEvent, setMajorEvent] = useState(false);
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const chosen = cause || incident.cause || '';
  // Older pages read on request; a new detail (after recording) starts again from its newest page.
  const [older, setOlder] = useState<CauseHistoryPage>({ data: [], next: incident.causeHistoryNext });
  useEffect(() => setOlder({ data: [], next: incident.causeHistoryNext }), [incident]);
  const history = [...incident.causeHistory, ...older.data];
  const more = async () => {
    try {
      const page = await apiGet<CauseHistoryPage>(`/api/incidents/${incident.id}/cause-history`, { before: older.next });
      setOlder({ data: [...older.data, ...page.data], next: page.next });
    } catch (err) {
      setError(err as ApiError);
    }
  };
  const record = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      await apiPost<CauseChange>(`/api/incidents/${incident.id}/cause`, { cause: chosen, majorEvent, note: note.trim() || null });
      setError(null);
      setNote('');
      onSaved();
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div data-testid="incident-cause">
      <p>{incident.cause ? <>Cause: <strong data-testid="incident-cause-now">{incident.cause}</strong>{incident.majorEvent ? ' (major event)' : ''}</> : 'No cause recorded yet.'}</p>
      {list.error && <ErrorState error={list.error} onRetry={list.reload} />}
      {list.data && (
        <form class="filters" aria-label="Record the cause" onSubmit={(e) => void record(e)}>
          <label>Cause
            <select name="cause" value={chosen} required onChange={(e) => setCause(e.currentTarget.value)}>
              <option value="" disabled>Choose…</option>
              {list.data.data.map((c) => <option key={c.id} value={c.id}>{c.label ?? c.id}</option>)}
            </select>
          </label>
          <label><input type="checkbox" name="majorEvent" checked={majorEvent} onChange={(e) => setMajorEvent(e.currentTarget.checked)} /> Major event</label>
          <label>Note
            <input type="text" name="note" maxLength={500} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
          </label>
          <button type="submit" class="button" disabled={busy || !chosen}>{busy ? 'Recording…' : 'Record cause'}</button>
        </form>
      )}
      {error && <ErrorState error={error} />}
      {history.length > 0 && (
        <DataTable caption="Causes recorded, newest first" rowKey={(h) => String(h.id)} rows={history} columns={[
          { key: 'cause', label: 'Cause' },
          { key: 'majorEvent', label: 'Major event', render: (h) => (h.majorEvent ? 'yes' : 'no') },
          { key: 'note', label: 'Note', render: (h) => h.note ?? '' },
          { key: 'setBy', label: 'By' },
          { key: 'setAt', label: `When (${CLOCK_NAMES.service})`, render: (h) => isoToSecond(h.setAt, zone) },
        ]} />
      )}
      {older.next !== null && <button type="button" class="button" data-testid="cause-history-more" onClick={() => void more()}>Show older causes</button>}
    </div>
  );
}
