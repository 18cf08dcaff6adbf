// The one date range control (data log, critical faults, device page): calendar days typed as `YYYY-MMM-DD`,
// the format family of every time the portal shows, in the signed-in user's zone (the API's from / to).
// Text fields rather than <input type="date">, whose display follows the browser's locale (mm/dd/yyyy).
import { useState } from 'preact/hooks';
import { fromApiDay, toApiDay } from '../time';

export interface DayRangeValue { from: string | null; to: string | null }

function DayField({ label, name, value, onDay }: { label: string; name: string; value: string | null; onDay: (day: string | null) => void }) {
  const [error, setError] = useState(false);
  return (
    <label>{label}
      <input name={name} defaultValue={fromApiDay(value)} key={value ?? ''} placeholder="YYYY-MMM-DD" inputMode="text" autoComplete="off" size={12}
        aria-invalid={error ? 'true' : 'false'}
        onChange={(e) => {
          const text = e.currentTarget.value.trim();
          const day = text === '' ? null : toApiDay(text);
          setError(text !== '' && day === null);
          if (text === '' || day !== null) onDay(day);
        }} />
      {error && <span class="field-error" role="alert">Write the day as 2026-Nov-23</span>}
    </label>
  );
}

export function DayRange({ value, onChange, timeZone, note }: { value: DayRangeValue; onChange: (next: DayRangeValue) => void; timeZone: string; note?: string }) {
  return (
    <>
      <DayField label="From" name="from" value={value.from} onDay={(from) => onChange({ ...value, from })} />
      <DayField label="To" name="to" value={value.to} onDay={(to) => onChange({ ...value, to })} />
      <span class="muted small" data-testid="range-zone">Days and times in {timeZone}{note ? `; ${note}` : ''}</span>
    </>
  );
}
