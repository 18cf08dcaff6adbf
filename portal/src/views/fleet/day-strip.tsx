// One device's strip of UTC days (GET /api/fleet/devices/{imei}/health): a cell per day coloured by the share of
// expected check-ins missed (day-bands.ts), with a legend. Each cell is focusable and says its day in words to a
// screen reader; hovering or focusing it shows a tooltip with the day's expected and received check-ins, RSSI,
// battery and connection time.
import { powerText } from '../../fault-state';
import { BANDS, bandInfo, dayBand } from './day-bands';
import type { HealthDay } from './types';
import { count, utcDay, withUnit } from './words';

function rangeText(min: number | null, max: number | null, unit: string, digits: number): string {
  if (min === null && max === null) return '—';
  if (min === max || max === null) return withUnit(min, unit, digits);
  return `${withUnit(min, unit, digits)} to ${withUnit(max, unit, digits)}`;
}

/** What the day's tooltip says, line by line (also read by the browser test). */
export function dayLines(d: HealthDay): string[] {
  const power = powerText(d.batteryOrLine);
  return [
    `${utcDay(d.day)} (UTC): ${bandInfo(dayBand(d)).label}`,
    d.expected === null ? `received ${count(d.received)}, nothing expected` : `expected ${count(d.expected)}, received ${count(d.received)}, missed ${count(d.missed ?? 0)}`,
    `RSSI median ${withUnit(d.rssiMedian, 'dBm', 1)} (${rangeText(d.rssiMin, d.rssiMax, 'dBm', 1)})`,
    `battery MCU ${rangeText(d.batteryMcuMin, d.batteryMcuMax, 'V', 2)}, LED ${rangeText(d.batteryLedMin, d.batteryLedMax, 'V', 2)}${power ? `; power ${power}` : ''}`,
    `connection time ${d.connectTimeSum === null ? '—' : `${count(Math.round(d.connectTimeSum))} s over ${d.connectTimeReports} reports`}`,
    ...(d.firmware ? [`firmware ${d.firmware}`] : []),
  ];
}

export function DayStrip({ days, imei }: { days: HealthDay[]; imei: string }) {
  return (
    <figure class="strip">
      <ol class="day-strip" aria-label={`Check-ins of ${imei} per UTC day, oldest first`} data-testid="day-strip">
        {days.map((d) => {
          const info = bandInfo(dayBand(d));
          const lines = dayLines(d);
          const tip = `tip-${imei}-${d.day}`;
          return (
            <li key={d.day} class="day-cell" data-day={d.day} data-band={info.band} style={{ background: info.colour }} tabIndex={0} aria-describedby={tip}>
              <span class="visually-hidden">{lines[0]}</span>
              <span class="day-tip" role="tooltip" id={tip}>{lines.map((l) => <span key={l}>{l}</span>)}</span>
            </li>
          );
        })}
      </ol>
      <figcaption>
        <ul class="strip-legend" aria-label="Colours of the days">
          {BANDS.map((b) => <li key={b.band} data-band={b.band}><span class="legend-box" style={{ background: b.colour }} aria-hidden="true" />{b.label}</li>)}
        </ul>
        <span class="muted small">{days.length ? `${utcDay(days[0]!.day)} to ${utcDay(days[days.length - 1]!.day)}, UTC days; today counts the hours gone. Hover or focus a day for its figures.` : ''}</span>
      </figcaption>
    </figure>
  );
}
