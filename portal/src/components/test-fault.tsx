// The device page's test fault (admins only; docs/commissioning.md#test-faults): a button that asks first, naming the
// SCADA and OMS integrations the synthetic fault will reach (GET /api/test-fault-targets), then starts one;
// and the timeline of the newest, refreshed every 2 s until it has settled (then every 30 s). Each step shows
// its time to the second in the user's zone (service clock) and its latency since the check-in was queued
// and since the step it follows. What the caption says comes from test-fault-status.ts.
import { useEffect, useState } from 'preact/hooks';
import { apiPost } from '../api/client';
import type { TestFault } from '../api/types';
import { testFaultStatus, type TestFaultStatus } from '../test-fault-status';
import { formatSecondTime } from '../time';
import { useAction } from '../use-action';
import { useApi } from '../use-api';

interface Target { id: string; kind: 'dnp3' | 'iec104' | 'multispeak'; channel: string }

const ms = (v: number | null) => (v === null ? '—' : v < 1000 ? `${v} ms` : `${(v / 1000).toFixed(1)} s`);
const KIND = { dnp3: 'SCADA master (DNP3)', iec104: 'SCADA master (IEC 104)', multispeak: 'OMS (MultiSpeak)' } as const;

function statusText(s: TestFaultStatus, at: (iso: string) => string): string {
  switch (s.kind) {
    case 'done': return 'every step done';
    case 'running': return `in progress, clears at ${at(s.clearsAt)}`;
    case 'clearing': return s.waitingFor.length ? `cleared; waiting for ${s.waitingFor.join(', ')}` : 'cleared';
    case 'clear-overdue': return `ended without its clearing check-in (due ${at(s.dueAt)}): the device may still show the test fault; is the faultline API process running?`;
    case 'incomplete': return `ended; never recorded: ${s.missing.join(', ')}`;
  }
}

function Confirm({ targets, onYes, onNo }: { targets: Target[] | null; onYes(): void; onNo(): void }) {
  return (
    <div class="notice confirm" role="alertdialog" aria-labelledby="test-fault-confirm" data-testid="test-fault-confirm">
      <p id="test-fault-confirm"><strong>Send a test fault for this device?</strong></p>
      {targets === null ? <p>Reading the integrations…</p> : targets.length === 0
        ? <p>It reaches no SCADA master or OMS: this organisation has no integration enabled. It is stored and shown here only.</p>
        : <><p>It reaches:</p><ul>{targets.map((t) => <li key={t.id}>{KIND[t.kind]} <strong>{t.id}</strong> (channel {t.channel})</li>)}</ul><p>Tell their operators first.</p></>}
      <button type="button" class="button" onClick={onYes} disabled={targets === null}>Send the test fault</button>{' '}
      <button type="button" class="button" onClick={onNo}>Cancel</button>
    </div>
  );
}

export function TestFaultPanel({ imei, timeZone }: { imei: string; timeZone: string }) {
  const [asking, setAsking] = useState(false);
  // Every 2 s while the newest test fault runs; once it has settled (or there is none), every 30 s like the
  // device's details, which is enough to notice one started elsewhere (the command, another admin).
  const [settled, setSettled] = useState(false);
  const list = useApi<{ data: TestFault[] }>('/api/test-faults', { imei, limit: 1 }, { refreshMs: settled ? 30_000 : 2_000 });
  const targets = useApi<{ data: Target[] }>(asking ? '/api/test-fault-targets' : null);
  const latest = list.data?.data[0];
  const status = latest ? testFaultStatus(latest, Date.now()) : null;
  const nowSettled = list.data !== null && (status === null || status.kind === 'done' || status.kind === 'incomplete' || status.kind === 'clear-overdue');
  useEffect(() => setSettled(nowSettled), [nowSettled]);
  const at = (iso: string) => formatSecondTime(Date.parse(iso), timeZone);
  const start = useAction(async () => {
    setAsking(false);
    await apiPost<TestFault>('/api/test-faults', { imei });
    list.reload();
  });
  return (
    <section class="test-fault" aria-labelledby="test-fault-title" data-testid="test-fault">
      <h2 id="test-fault-title">Test fault</h2>
      <p class="muted small">A synthetic fault for this device, delivered like a real one and cleared after a while.</p>
      <button type="button" class="button" onClick={() => setAsking(true)} disabled={start.busy || asking || status?.kind === 'running'} data-testid="start-test-fault">
        {start.busy ? 'Starting…' : 'Start test fault'}
      </button>
      {asking && <Confirm targets={targets.data?.data ?? null} onYes={() => void start.run()} onNo={() => setAsking(false)} />}
      {targets.error && <div class="notice notice-error" role="alert">{targets.error.message}</div>}
      {/* The API's refusal says why (a device in a fault, a test still running, no queue): not a server failure. */}
      {start.error && <div class="notice notice-error" role="alert"><strong>Not started.</strong> <span>{start.error.message}</span></div>}
      {latest && status && (
        <table class="timeline" data-testid="test-fault-timeline">
          <caption data-status={status.kind}>
            Test fault {latest.id}, started {at(latest.startedAt)} ({timeZone}, service clock) by {latest.startedBy}: {statusText(status, at)}
          </caption>
          <thead><tr><th>Phase</th><th>Step</th><th>Time (service clock)</th><th class="num">Since queued</th><th class="num">Since the step before</th><th>Detail</th></tr></thead>
          <tbody>
            {latest.timeline.map((e) => (
              <tr key={`${e.phase}:${e.step}`} data-step={`${e.phase}:${e.step}`}>
                <td>{e.phase}</td><td>{e.text}</td><td>{at(e.at)}</td>
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
