// The reliability export from the Incidents view (GET /api/reliability/export, docs/reliability-export.md):
// a period by first-trip day and a format; the file is fetched with the session's token and saved.
import { useState } from 'preact/hooks';
import { apiFile } from '../api/client';
import { ErrorState } from '../components/states';
import { useAction } from '../use-action';

const day = (input: string) => input.replaceAll('-', '');

export function IncidentExport() {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const download = useAction(async (format: 'csv' | 'parquet') => {
    const { blob, name } = await apiFile('/api/reliability/export', { format, from: from ? day(from) : null, to: to ? day(to) : null });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = name;
    a.click();
    URL.revokeObjectURL(a.href);
  });
  return (
    <>
      <form class="filters" aria-label="Export" onSubmit={(e) => e.preventDefault()}>
        <label>First trip from <input type="date" name="from" value={from} onInput={(e) => setFrom(e.currentTarget.value)} /></label>
        <label>to <input type="date" name="to" value={to} onInput={(e) => setTo(e.currentTarget.value)} /></label>
        <button type="button" class="button" disabled={download.busy} onClick={() => void download.run('csv')}>Export CSV</button>
        <button type="button" class="button" disabled={download.busy} onClick={() => void download.run('parquet')}>Export Parquet</button>
      </form>
      {download.error && <ErrorState error={download.error} />}
    </>
  );
}
