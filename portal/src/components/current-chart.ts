// uPlot charts of load history (loaded on demand by the device page, so uPlot stays out of the main chunk):
// peak current per check-in over time, and the 24 hourly averages of one check-in. Times on the axis and in
// the legend are the user's zone in the portal's one format family (YYYY-MMM-DD, hh:mm A); currents start
// at 0 A so a low load does not look like a high one.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { breakAtGaps, type TimedValue } from '../chart-gaps';
import { currentAxisRange } from '../chart-scale';
import { formatClock, formatDisplayDay, formatSecondTime } from '../time';

function axisColours(): Partial<uPlot.Axis> {
  return { stroke: '#1f2933', grid: { stroke: '#e3e8ee', width: 1 }, ticks: { stroke: '#c5ced8', width: 1 } };
}

const fromZero: uPlot.Scale = { range: (_u, _min, max) => currentAxisRange(max) };
const amps = (_u: uPlot, v: number | null) => (v == null ? '—' : `${v} A`);

export function peakChart(el: HTMLElement, points: TimedValue[], timeZone: string, width: number): uPlot {
  const shown = breakAtGaps(points);
  const opts: uPlot.Options = {
    width, height: 220,
    scales: { x: { time: true }, y: fromZero },
    series: [
      { label: `Check-in (${timeZone}, device clock)`, value: (_u, s) => (s == null ? '—' : formatSecondTime(s * 1000, timeZone)) },
      { label: 'Peak current (A)', stroke: '#b71c1c', width: 2, points: { show: true, size: 5 }, spanGaps: false, value: amps },
    ],
    axes: [
      // Ticks under a day apart show the clock, the others the day; on an axis over several days the clock
      // ticks carry their day too (a second line), so 09:00 of Monday and of Tuesday cannot be confused.
      { ...axisColours(), size: 50, values: (u, ticks, _a, _s, step) => {
        const span = (u.scales.x?.max ?? 0) - (u.scales.x?.min ?? 0);
        return ticks.map((t) => (step >= 86_400 ? formatDisplayDay(t * 1000, timeZone)
          : span > 86_400 ? `${formatClock(t * 1000, timeZone)}\n${formatDisplayDay(t * 1000, timeZone)}` : formatClock(t * 1000, timeZone)));
      } },
      { ...axisColours(), label: 'A' },
    ],
  };
  return new uPlot(opts, [shown.map((p) => p.t / 1000), shown.map((p) => p.v)], el);
}

export function hourlyChart(el: HTMLElement, hours: (number | null)[], label: string, width: number): uPlot {
  const opts: uPlot.Options = {
    width, height: 220,
    scales: { x: { time: false }, y: fromZero },
    series: [
      { label: 'Hour' },
      { label, stroke: '#0b5394', fill: 'rgba(11,83,148,0.12)', width: 2, points: { show: true, size: 5 }, value: amps },
    ],
    axes: [{ ...axisColours(), label: 'Hourly average H0–H23, as the device reported them', values: (_u, ticks) => ticks.map((t) => `H${t}`) }, { ...axisColours(), label: 'A' }],
  };
  return new uPlot(opts, [hours.map((_, i) => i), hours], el);
}
