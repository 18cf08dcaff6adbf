// The SVG chart of a bench summary: stored check-ins per second over time, and below it the median latency
// of each second, one colour per scenario in both panels. Plain SVG text, no chart library.
import type { ScenarioResult } from './common.js';

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

interface Series { label: string; points: number[]; colour: string }
/** A scenario drawn as a dashed level (its median) rather than over time: baseline and ceiling. */
interface Level { label: string; value: number; colour: string }

const WIDTH = 720;
const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#8c564b', '#e377c2'];

/**
 * One line chart at vertical offset `top`: a polyline per series over seconds since the clock started, and
 * a dashed line per level that fits the scale (up to 3x the highest series; above it, only named).
 */
function chartPanel(title: string, series: readonly Series[], top: number, levels: readonly Level[] = []): string {
  const W = WIDTH, H = 300, L = 60, B = 40, T = 30, R = 170;
  const maxX = Math.max(1, ...series.map((s) => s.points.length));
  const seriesMax = Math.max(1, ...series.flatMap((s) => s.points.filter(Number.isFinite)));
  const shown = levels.filter((l) => l.value <= 3 * seriesMax);
  const maxY = Math.max(seriesMax, ...shown.map((l) => l.value));
  const x = (i: number) => L + (i / maxX) * (W - L - R);
  const y = (v: number) => top + H - B - (v / maxY) * (H - B - T);
  const lines = series.map((s, k) => {
    // A second with no value (nothing stored in it) breaks the line rather than dropping it to 0.
    const pts = s.points.map((v, i) => (Number.isFinite(v) ? `${x(i + 1).toFixed(1)},${y(v).toFixed(1)}` : '')).join(' ').trim();
    const c = s.colour;
    return `<polyline fill="none" stroke="${c}" stroke-width="2" points="${pts}"/>`
      + `<text x="${W - R + 10}" y="${top + T + 16 * k + 10}" fill="${c}" font-size="12">${s.label}</text>`;
  }).join('\n');
  const levelLines = levels.map((l, k) => {
    const label = `<text x="${W - R + 10}" y="${top + T + 16 * (series.length + k) + 10}" fill="${l.colour}" font-size="12">${l.label} ${fmt(l.value)}/s${shown.includes(l) ? '' : ' (off scale)'}</text>`;
    return shown.includes(l) ? `<line x1="${L}" x2="${W - R}" y1="${y(l.value).toFixed(1)}" y2="${y(l.value).toFixed(1)}" stroke="${l.colour}" stroke-width="1.5" stroke-dasharray="6 4"/>${label}` : label;
  }).join('\n');
  return [
    `<text x="${L}" y="${top + 18}" font-size="13">${title}</text>`,
    `<line x1="${L}" y1="${top + H - B}" x2="${W - R}" y2="${top + H - B}" stroke="black"/><line x1="${L}" y1="${top + T}" x2="${L}" y2="${top + H - B}" stroke="black"/>`,
    `<text x="${L - 6}" y="${top + T + 4}" font-size="11" text-anchor="end">${fmt(maxY)}</text>`,
    `<text x="${L - 6}" y="${top + H - B + 4}" font-size="11" text-anchor="end">0</text>`,
    `<text x="${W - R}" y="${top + H - B + 16}" font-size="11" text-anchor="end">${maxX} s</text>`,
    `<text x="${(L + W - R) / 2}" y="${top + H - 8}" font-size="11" text-anchor="middle">seconds since the clock started</text>`,
    lines,
    levelLines,
  ].join('\n');
}

/**
 * Throughput over time of the SQS-to-Postgres scenarios (baseline and ceiling as dashed levels, so the
 * baseline's long run does not squash the others) above their latency over time.
 */
export function svgChart(results: readonly ScenarioResult[]): string {
  // One colour per scenario in both panels.
  const colour = (r: ScenarioResult) => COLOURS[results.indexOf(r) % COLOURS.length]!;
  const isLevel = (r: ScenarioResult) => r.scenario === 'baseline' || r.scenario === 'ceiling';
  const throughput = results.filter((r) => r.timeline.length > 0 && !isLevel(r)).map((r) => ({ label: r.scenario, points: r.timeline, colour: colour(r) }));
  const levels = results.filter(isLevel).map((r) => ({ label: r.scenario, value: r.throughput.median, colour: colour(r) }));
  const latency = results.filter((r) => r.latencyTimeline?.length).map((r) => ({ label: r.scenario, points: r.latencyTimeline!, colour: colour(r) }));
  const height = latency.length ? 600 : 300;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" font-family="sans-serif">`,
    `<rect width="${WIDTH}" height="${height}" fill="white"/>`,
    chartPanel('stored check-ins per second (median run of each scenario)', throughput, 0, levels),
    ...(latency.length ? [chartPanel('median latency (ms, SQS send to stored) of the check-ins stored in each second', latency, 300)] : []),
    '</svg>',
    '',
  ].join('\n');
}
