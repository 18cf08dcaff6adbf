// The fleet cards (GET /api/fleet/summary): online rate over 7 and 30 days, batteries ending within 90 days,
// weak or falling signal, firmware versions by model, silent devices by cause. Each count links to the device
// list showing what it counts: a filter where the list has one (signal, model and firmware, silence label), else
// the list sorted by the card's measure, worst first (online rate, battery days left).
import type { ComponentChildren } from 'preact';
import { Link } from '../../components/link';
import { SILENCE_LABELS, type FleetSummary, type OnlineRate } from './types';
import { count, ofExpected, percent, SILENCE_TEXT } from './words';

/** A link into the list: `filter` replaces the list's filters, `sort` its order; the page starts again. */
export type ListLink = (change: { filter?: Record<string, unknown> | null; sort?: { field: string; order: 'asc' | 'desc' } }) => string;

function Card({ title, testId, tone, children }: { title: string; testId: string; tone?: string; children: ComponentChildren }) {
  const id = `${testId}-title`;
  return (
    <section class={`card fleet-card ${tone ?? ''}`} data-testid={testId} aria-labelledby={id}>
      <h2 id={id} class="card-label">{title}</h2>
      {children}
    </section>
  );
}

function Online({ rate, days, to, testId }: { rate: OnlineRate; days: number; to: string; testId: string }) {
  return (
    <Card title={`Online rate, last ${days} days`} testId={testId} tone={rate.rate !== null && rate.rate < 0.9 ? 'warn' : 'ok'}>
      <Link href={to} class="card-value">{percent(rate.rate)}<span class="visually-hidden">: the devices by their {days}-day online rate, lowest first</span></Link>
      <span class="card-note" data-testid={`${testId}-sums`}>{ofExpected(rate)}, {count(rate.devices)} devices assessed</span>
    </Card>
  );
}

/** A row of a card: a count that links to the list of what it counts. */
function Row({ label, n, to, testId }: { label: string; n: number; to: string | null; testId: string }) {
  return (
    <li data-testid={testId} data-count={n}>
      {to ? <Link href={to}>{label}</Link> : <span>{label}</span>}
      <span class="card-count">{count(n)}</span>
    </li>
  );
}

export function FleetCards({ s, link }: { s: FleetSummary; link: ListLink }) {
  const rateSort = (field: string) => link({ filter: null, sort: { field, order: 'asc' } });
  return (
    <div class="cards fleet-cards" aria-label="Fleet summary; each count links to the devices it counts">
      <Online rate={s.online7d} days={7} to={rateSort('onlineRate7d')} testId="card-online-7d" />
      <Online rate={s.online30d} days={30} to={rateSort('onlineRate30d')} testId="card-online-30d" />
      <Card title="Battery end within 90 days" testId="card-battery" tone={s.batteryEndWithin90d > 0 ? 'warn' : 'ok'}>
        <Link href={link({ filter: null, sort: { field: 'batteryDaysLeft', order: 'asc' } })} class="card-value">{count(s.batteryEndWithin90d)}<span class="visually-hidden">: the devices by battery days left, fewest first</span></Link>
        <span class="card-note">devices (or already past); the link lists the fewest days left first</span>
      </Card>
      <Card title="Signal" testId="card-signal" tone={s.signal.weak + s.signal.falling > 0 ? 'warn' : 'ok'}>
        <ul class="card-rows">
          <Row label="Weak" n={s.signal.weak} to={link({ filter: { signal: { eq: 'weak' } } })} testId="card-signal-weak" />
          <Row label="Falling" n={s.signal.falling} to={link({ filter: { signal: { eq: 'falling' } } })} testId="card-signal-falling" />
        </ul>
      </Card>
      <Card title="Firmware by model" testId="card-firmware">
        {s.firmwareByModel.length === 0 ? <span class="card-note">No assessed devices.</span> : (
          <ul class="card-rows">
            {s.firmwareByModel.map((f) => (
              <Row key={`${f.model}/${f.firmware}`} label={`${f.model ?? 'model not reported'} · ${f.firmware ?? 'not reported'}`} n={f.devices} testId="card-firmware-row"
                to={f.model !== null && f.firmware !== null ? link({ filter: { model: { eq: f.model }, firmware: { eq: f.firmware } } }) : null} />
            ))}
          </ul>
        )}
      </Card>
      <Card title={`Silent devices: ${count(s.silent)}`} testId="card-silent" tone={s.silent > 0 ? 'bad' : 'ok'}>
        <ul class="card-rows">
          {SILENCE_LABELS.map((l) => <Row key={l} label={SILENCE_TEXT[l]} n={s.silentByLabel[l]} to={link({ filter: { silenceLabel: { eq: l } } })} testId={`card-silent-${l}`} />)}
        </ul>
      </Card>
    </div>
  );
}
