// The cause of an incident on its page (docs/reliability-export.md#causes): the cause now, a form to record
// one from the organisation's list (GET /api/incident-causes) with the major-event flag and a note, and the
// causes recorded, newest first, with who and when: the incident's newest page, older pages on request
// (GET /api/incidents/<id>/cause-history). Every user who reads the incident may record one.
import { useEffect, useState } from 'preact/hooks';
import { apiGet, apiPost } from '../api/client';
import type { CauseChange, CauseHistoryPage, CauseList, IncidentDetail } from '../api/incidents';
import { ErrorState } from '../components/states';
import { DataTable } from '../components/table';
import { CLOCK_NAMES, isoToSecond } from '../time';
import { useAction } from '../use-action';
import { useApi } from '../use-api';

export function IncidentCause({ incident, zone, onSaved }: { incident: IncidentDetail; zone: string; onSaved: () => void }) {
  const list = useApi<CauseList>('/api/incident-causes');
  const [cause, setCause] = useState('');
  const [majorEvent, setMajorEvent] = useState(false);
  const [note, setNote] = useState('');
  const chosen = cause || incident.cause || '';
  // Older pages read on request; a new detail (after recording) starts again from its newest page.
  const [older, setOlder] = useState<CauseHistoryPage>({ data: [], next: incident.causeHistoryNext });
  useEffect(() => setOlder({ data: [], next: incident.causeHistoryNext }), [incident]);
  const history = [...incident.causeHistory, ...older.data];
  const more = useAction(async () => {
    const page = await apiGet<CauseHistoryPage>(`/api/incidents/${incident.id}/cause-history`, { before: older.next });
    setOlder({ data: [...older.data, ...page.data], next: page.next });
  });
  const record = useAction(async () => {
    await apiPost<CauseChange>(`/api/incidents/${incident.id}/cause`, { cause: chosen, majorEvent, note: note.trim() || null });
    setNote('');
    onSaved();
  });
  return (
    <div data-testid="incident-cause">
      <p>{incident.cause ? <>Cause: <strong data-testid="incident-cause-now">{incident.cause}</strong>{incident.majorEvent ? ' (major event)' : ''}</> : 'No cause recorded yet.'}</p>
      {list.error && <ErrorState error={list.error} onRetry={list.reload} />}
      {list.data && (
        <form class="filters" aria-label="Record the cause" onSubmit={(e) => { e.preventDefault(); void record.run(); }}>
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
          <button type="submit" class="button" disabled={record.busy || !chosen}>{record.busy ? 'Recording…' : 'Record cause'}</button>
        </form>
      )}
      {record.error && <ErrorState error={record.error} />}
      {more.error && <ErrorState error={more.error} />}
      {history.length > 0 && (
        <DataTable caption="Causes recorded, newest first" rowKey={(h) => String(h.id)} rows={history} columns={[
          { key: 'cause', label: 'Cause' },
          { key: 'majorEvent', label: 'Major event', render: (h) => (h.majorEvent ? 'yes' : 'no') },
          { key: 'note', label: 'Note', render: (h) => h.note ?? '' },
          { key: 'setBy', label: 'By' },
          { key: 'setAt', label: `When (${CLOCK_NAMES.service})`, render: (h) => isoToSecond(h.setAt, zone) },
        ]} />
      )}
      {older.next !== null && <button type="button" class="button" data-testid="cause-history-more" disabled={more.busy} onClick={() => void more.run()}>Show older causes</button>}
    </div>
  );
}
