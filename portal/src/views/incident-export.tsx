// The reliability export from the Incidents view (GET /api/reliability/export, docs/reliability-export.md):
// a period by first-trip day and a format; the file is fetched with the session's token and saved.
import { useState } from 'preact/hooks';
import { ErrorState } from '../components/states';
import { download } from '../download';
import { useAction } from '../use-action';

const day = (input: string) => input.replaceAll('-', '');

export function IncidentExport() {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const exported = useAction((format: 'csv' | 'parquet') => download('/api/reliability/export', { format, from: from ? day(from) : null, to: to ? day(to) : null }));
  return (
    <>
      <form class="filters" aria-label="Export" onSubmit={(e) => e.preventDefault()}>
        <label>First trip from <input type="date" name="from" value={from} onInput={(e) => setFrom(e.currentTarget.value)} /></label>
        <label>to <input type="date" name="to" value={to} onInput={(e) => setTo(e.currentTarget.value)} /></label>
        <button type="button" class="button" disabled={exported.busy} onClick={() => void exported.run('csv')}>Export CSV</button>
        <button type="button" class="button" disabled={exported.busy} onClick={() => void exported.run('parquet')}>Export Parquet</button>
      </form>
      {exported.error && <ErrorState error={exported.error} />}
    </>
  );
}
