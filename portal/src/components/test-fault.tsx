// The device page's test fault (admins only; docs/commissioning.md#test-faults): a button that starts one and the
// timeline of the newest, refreshed every 2 s until both phases are complete (then every 30 s). Each step shows its time in the
// user's zone and its latency since the check-in was queued and since the step it follows.
import { useEffect, useState } from 'preact/hooks';
import { apiPost, type ApiError } from '../api/client';
import type { TestFault } from '../api/types';
import { useApi } from '../use-api';

const ms = (v: number | null) => (v === null ? '—' : v < 1000 ? `${v} ms` : `${(v / 1000).toFixed(1)} s`);

function timeIn(iso: string, timeZone: string): string {
  return new Date(iso).toLocaleTimeString('en-GB', { timeZone, hour12: false });
}

export function TestFaultPanel({ imei, timeZone }: { imei: string; timeZone: string }) {
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  // Every 2 s while the newest test fault runs; once it is complete (or there is none), every 30 s like the
  // device's details, which is enough to notice one started elsewhere (the command, another admin).
  const [settled, setSettled] = useState(false);
  const list = useApi<{ data: TestFault[] }>('/api/test-faults', { imei, limit: 1 }, { refreshMs: settled ? 30_000 : 2_000 });
  const latest = list.data?.data[0];
  const nowSettled = list.data !== null && (latest === undefined || latest.complete);
  useEffect(() => setSettled(nowSettled), [nowSettled]);
  const start = async () => {
    setBusy(true);
    setError(null);
    try {
      await apiPost<TestFault>('/api/test-faults', { imei });
      list.reload();
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="test-fault" aria-labelledby="test-fault-title" data-testid="test-fault">
      <h2 id="test-fault-title">Test fault</h2>
      <p class="muted small">
        Sends a synthetic fault for this device through the queue and the pipeline to the SCADA master (DNP3) and the OMS,
        marked as a test where the protocol allows, and clears it after a while. Tell the SCADA and OMS operators first.
      </p>
      <button type="button" class="button" onClick={() => void start()} disabled={busy || (latest !== undefined && !latest.clearSentAt)} data-testid="start-test-fault">
        {busy ? 'Starting…' : 'Start test fault'}
      </button>
      {/* The API's refusal says why (a device in a fault, a test still running, no queue): not a server failure. */}
      {error && <div class="notice notice-error" role="alert"><strong>Not started.</strong> <span>{error.message}</span></div>}
      {latest && (
        <table class="timeline" data-testid="test-fault-timeline">
          <caption>
            Test fault {latest.id}, started {timeIn(latest.startedAt, timeZone)} ({timeZone}) by {latest.startedBy}:{' '}
            {latest.complete ? 'every step done' : `in progress, clears at ${timeIn(latest.clearDueAt, timeZone)}`}
          </caption>
          <thead><tr><th>Phase</th><th>Step</th><th>Time</th><th class="num">Since queued</th><th class="num">Since the step before</th><th>Detail</th></tr></thead>
          <tbody>
            {latest.timeline.map((e) => (
              <tr key={`${e.phase}:${e.step}`} data-step={`${e.phase}:${e.step}`}>
                <td>{e.phase}</td><td>{e.text}</td><td>{timeIn(e.at, timeZone)}</td>
                <td class="num">{ms(e.sinceQueuedMs)}</td><td class="num">{ms(e.sinceStepBeforeMs)}</td>
                <td class="small">{e.step.startsWith('oms') ? [e.detail.status ? `HTTP ${String(e.detail.status)}` : null, e.detail.error ? String(e.detail.error) : null].filter(Boolean).join(' ') : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
