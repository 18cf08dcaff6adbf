// One device of the fleet view (?device=<imei>): its strip of days, its battery forecast (or why there is none),
// its signal trend, why it is silent with the evidence, and the settings that drift from its group profile,
// from GET /api/fleet/devices/{imei}/health.
import { useEffect, useRef } from 'preact/hooks';
import type { Session } from '../../api/session';
import { Link } from '../../components/link';
import { ErrorState } from '../../components/states';
import { isoToSecond } from '../../time';
import { useApi } from '../../use-api';
import { DayStrip } from './day-strip';
import { EvidenceList } from './evidence';
import type { DeviceHealth } from './types';
import { BATTERY_TEXT, count, SIGNAL_TEXT, SILENCE_TEXT, utcDay, withUnit } from './words';

type Health = NonNullable<DeviceHealth['health']>;

/** The forecast in one sentence; when there is none, why. */
export function batterySentence(h: Health): string {
  switch (h.batteryStatus) {
    case 'ok':
    case 'ends_soon':
      return `${BATTERY_TEXT[h.batteryStatus]}: about ${h.batteryDaysLeft === null ? '—' : count(h.batteryDaysLeft)} days left, ending around ${utcDay(h.batteryEndDay)}.`;
    case 'exhausted':
      return `Exhausted: the consumption counted has used the model's whole budget (end ${utcDay(h.batteryEndDay)}).`;
    case 'not_enough_data':
      // The minimum is the forecast's own (fleet/battery-forecast.ts), sent in its evidence.
      return `Not enough data: ${h.historyDays} days of history in the last 30; the forecast needs at least ${String(h.batteryEvidence.minHistoryDays)}.`;
    case 'flat':
      return 'Not enough data: the consumption is flat (no end within ten years can be read from it).';
    case 'line_powered':
      return 'Line powered: no battery forecast.';
  }
}

function signalSentence(h: Health): string {
  const slope = h.rssiSlope30d === null ? 'no 30-day trend yet' : `${h.rssiSlope30d > 0 ? '+' : ''}${h.rssiSlope30d.toFixed(2)} dB per day over 30 days`;
  return `${SIGNAL_TEXT[h.signal]}: median ${withUnit(h.rssiMedian7d, 'dBm', 1)} over 7 days, ${slope}.`;
}

export function DevicePanel({ imei, session, back, focus }: { imei: string; session: Session; back: string; focus: boolean }) {
  const res = useApi<DeviceHealth>(`/api/fleet/devices/${encodeURIComponent(imei)}/health`);
  const heading = useRef<HTMLHeadingElement | null>(null);
  // A device chosen from the list: bring its panel into view and put the focus on it.
  useEffect(() => {
    if (!focus) return;
    heading.current?.scrollIntoView({ block: 'start' });
    heading.current?.focus({ preventScroll: true });
  }, []);
  const d = res.data;
  const h = d?.health ?? null;
  return (
    <section class="device-panel" aria-labelledby="device-panel-title" data-testid="device-panel">
      <div class="view-head">
        <h2 id="device-panel-title" tabIndex={-1} ref={heading}>Device {imei}</h2>
        <Link href={`/devices/${encodeURIComponent(imei)}`}>Device page</Link>
        <Link href={back}>Close</Link>
      </div>
      {res.error && <ErrorState error={res.error} onRetry={res.reload} />}
      {!d && !res.error && <p class="status-line">Reading the device's days…</p>}
      {d && (
        <>
          <h3>Check-ins per day</h3>
          <DayStrip days={d.days} imei={imei} />
          <div class="panel-grid">
            <section aria-labelledby="battery-title" data-testid="battery-forecast">
              <h3 id="battery-title">Battery forecast</h3>
              {h ? <p data-status={h.batteryStatus}>{batterySentence(h)}</p> : <p class="muted">Not assessed yet.</p>}
              {h && <EvidenceList evidence={h.batteryEvidence} label="What the forecast read" />}
            </section>
            <section aria-labelledby="signal-title" data-testid="signal-trend">
              <h3 id="signal-title">Signal</h3>
              {h ? <p data-signal={h.signal}>{signalSentence(h)}</p> : <p class="muted">Not assessed yet.</p>}
              {h && <p class="muted small">Assessed {isoToSecond(h.assessedAt, session.timeZone)}; model {h.model ?? '—'}, firmware {h.firmware ?? '—'}.</p>}
            </section>
            <section aria-labelledby="silence-title" data-testid="silence">
              <h3 id="silence-title">Silence</h3>
              {d.silence
                ? <>
                  <p data-label={d.silence.label}><strong>{SILENCE_TEXT[d.silence.label]}</strong>{d.silence.silentSince ? `, silent since ${isoToSecond(d.silence.silentSince, session.timeZone)}` : ''}.</p>
                  <EvidenceList evidence={d.silence.evidence} label="Why" />
                </>
                : <p class="muted">Not silent at the last assessment.</p>}
            </section>
            <section aria-labelledby="drift-title" data-testid="drift">
              <h3 id="drift-title">Settings drift</h3>
              {d.drift.length === 0 ? <p class="muted">Matches its group profile (or its group sets none).</p> : (
                <table class="drift-table">
                  <caption class="visually-hidden">Settings that differ from the group profile</caption>
                  <thead><tr><th scope="col">Setting</th><th scope="col">Profile</th><th scope="col">Reported</th><th scope="col">Since (UTC)</th></tr></thead>
                  <tbody>
                    {d.drift.map((x) => <tr key={x.setting}><th scope="row">{x.setting}</th><td>{x.expected ?? '—'}</td><td>{x.reported ?? '—'}</td><td>{utcDay(x.sinceDay)}</td></tr>)}
                  </tbody>
                </table>
              )}
            </section>
          </div>
        </>
      )}
    </section>
  );
}
