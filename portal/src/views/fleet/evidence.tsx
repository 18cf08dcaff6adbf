// The evidence an assessment gives with its figure (battery forecast, silence label): a JSON object the fleet
// worker wrote (device_health.battery_evidence, device_silence.evidence), shown as a definition list with its
// keys in words. Lists of days are shortened to their last few entries, each written on one line.
import type { Evidence } from './types';

/** Entries of a list shown before "and N earlier". */
const LIST_TAIL = 7;

/** Units the worker writes at the end of a key (`perDayMah`), as they are written. */
const UNITS: Record<string, string> = { mah: 'mAh', dbm: 'dBm', km: 'km', rssi: 'RSSI' };

/** `lastVolts` -> "last volts", `perDayMah` -> "per day mAh", `rssi_slope` -> "RSSI slope". */
export const keyWords = (key: string): string =>
  key.replace(/_/g, ' ').replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(' ').map((w) => UNITS[w] ?? w).join(' ');

function scalar(v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'number') return v.toLocaleString('en-US', { maximumFractionDigits: 3 });
  if (typeof v === 'object') return Object.entries(v as Record<string, unknown>).map(([k, x]) => `${keyWords(k)} ${scalar(x)}`).join(', ');
  return String(v);
}

function value(v: unknown) {
  if (!Array.isArray(v)) return scalar(v);
  if (v.length === 0) return 'none';
  const shown = v.slice(-LIST_TAIL);
  return (
    <>
      {v.length > shown.length && <span class="muted">{v.length - shown.length} earlier, then: </span>}
      {shown.map((x, i) => <span key={i} class="evidence-item">{scalar(x)}</span>)}
    </>
  );
}

export function EvidenceList({ evidence, label }: { evidence: Evidence; label: string }) {
  const entries = Object.entries(evidence);
  if (entries.length === 0) return <p class="muted small">No evidence recorded.</p>;
  return (
    <dl class="evidence" aria-label={label}>
      {entries.map(([k, v]) => <div key={k}><dt>{keyWords(k)}</dt><dd>{value(v)}</dd></div>)}
    </dl>
  );
}
