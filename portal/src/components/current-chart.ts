// uPlot charts of load history (loaded on demand by the device page, so uPlot stays out of the main chunk):
// peak current per check-in over time, and the 24 hourly averages of one check-in.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartPoint { t: number; peak: number | null }

function axisColours(): Partial<uPlot.Axis> {
  return { stroke: '#1f2933', grid: { stroke: '#e3e8ee', width: 1 }, ticks: { stroke: '#c5ced8', width: 1 } };
}

export function peakChart(el: HTMLElement, points: ChartPoint[], timeZone: string, width: number): uPlot {
  const opts: uPlot.Options = {
    width, height: 220,
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), timeZone),
    scales: { x: { time: true } },
    series: [
      {},
      { label: 'Peak current (A)', stroke: '#b71c1c', width: 2, points: { show: true, size: 5 }, value: (_u, v) => (v == null ? '—' : `${v} A`) },
    ],
    axes: [{ ...axisColours() }, { ...axisColours(), label: 'A' }],
  };
  return new uPlot(opts, [points.map((p) => p.t / 1000), points.map((p) => p.peak)], el);
}

export function hourlyChart(el: HTMLElement, hours: (number | null)[], label: string, width: number): uPlot {
  const opts: uPlot.Options = {
    width, height: 220,
    scales: { x: { time: false } },
    series: [
      { label: 'Hour' },
      { label, stroke: '#0b5394', fill: 'rgba(11,83,148,0.12)', width: 2, points: { show: true, size: 5 }, value: (_u, v) => (v == null ? '—' : `${v} A`) },
    ],
    axes: [{ ...axisColours(), label: 'Hour (H0–H23)', values: (_u, ticks) => ticks.map((t) => `H${t}`) }, { ...axisColours(), label: 'A' }],
  };
  return new uPlot(opts, [hours.map((_, i) => i), hours], el);
}
