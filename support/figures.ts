// The headline figures the README and the sizing pages quote, each read from the committed result file that
// measured it (bench/results/). Pages hold them between markers, `<!-- figure:NAME -->...<!-- /figure -->`, and
// `npm run docs:figures` (bench/render-figures.ts) writes them; test/docs/figures.test.ts fails when a page drifts
// from the result files, so three pages cannot quote three numbers (docs/decisions.md#one-source-for-every-figure-and-status).
// Pure apart from reading the result files.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../', import.meta.url).pathname;
const RESULTS = 'bench/results';

interface Spread { median: number; min: number; max: number }
interface BenchScenario { scenario: string; throughput: Spread; cpuMicrosPerCheckIn: Spread }
interface ChainedVsSplit { options: { runs: number }; results: BenchScenario[] }
interface LatencyLeg { p50: number; p95: number }
interface Dnp3Run { devices: number; latency: { faults: number; dnp3: { totalMs: LatencyLeg; received: number }; iec104: { totalMs: LatencyLeg } }; loadAverage: Record<string, number[]> }
interface Incidents { feeders: number; devices: number; incidents: number; correctSections: number; locatedMs: { p50: number; p99: number } }
interface StorageRow { endpoint: string; caller: string; p99: number }
interface Storage {
  sizes: { records: number; bytes: number; bytesPerCheckIn: number; latencies: StorageRow[] }[];
  rate: number;
  removal: { dropMs: number; deleteMs: number };
}

const json = <T>(file: string): T => JSON.parse(readFileSync(join(root, RESULTS, file), 'utf8')) as T;
const text = (file: string): string => readFileSync(join(root, RESULTS, file), 'utf8');

/** 1325.5 -> "1,326"; `digits` after the point, grouped as the pages write numbers. */
export const num = (n: number, digits = 0): string => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
/** A link to a result file from a page in `from` (the repository root or docs/). */
const link = (file: string, from: 'root' | 'docs') => `[${file}](${from === 'root' ? '' : '../'}${RESULTS}/${file})`;

function scenario(file: string, name: string): BenchScenario & { runs: number } {
  const r = json<ChainedVsSplit>(file);
  const s = r.results.find((x) => x.scenario === name);
  if (!s) throw new Error(`${RESULTS}/${file} has no scenario "${name}"`);
  return { ...s, runs: r.options.runs };
}

/**
 * The first full-variant row of bench/results/alarms.md at the rate asked (the file is newest first; its .json
 * holds only the earliest quick runs): p50 / p90 / p99 / max in ms.
 */
export function alarmRun(markdown: string, offered = '1,000/s'): { p50: number; p90: number; p99: number; max: number } {
  for (const line of markdown.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    // | offered | achieved | raised / expected | clears | bad signatures | p50 / p90 / p99 / max |
    if (cells.length === 8 && cells[1] === offered && cells[2] === offered) {
      const [p50, p90, p99, max] = cells[6]!.split('/').map((v) => Number(v.trim()));
      if ([p50, p90, p99, max].every((v) => Number.isFinite(v))) return { p50: p50!, p90: p90!, p99: p99!, max: max! };
    }
  }
  throw new Error(`${RESULTS}/alarms.md has no full-variant row offered and sent at ${offered}`);
}

/** Rows of the read API at the largest size with p99 under 50 ms and within 2x of the smallest size's p99. */
function readTargets(s: Storage): { met: number; rows: number; size: number } {
  const small = s.sizes[0]!;
  const large = s.sizes.at(-1)!;
  const before = new Map(small.latencies.map((l) => [`${l.endpoint}|${l.caller}`, l.p99]));
  const met = large.latencies.filter((l) => l.p99 < 50 && l.p99 <= 2 * (before.get(`${l.endpoint}|${l.caller}`) ?? 0)).length;
  return { met, rows: large.latencies.length, size: large.records };
}

const GIB = 2 ** 30;

/** Every figure a page may quote, by name: `from` is where the page is (links are relative to it). */
export function figures(from: 'root' | 'docs'): Record<string, () => string> {
  const e2e = () => scenario('chained-vs-split.json', 'end-to-end');
  const pipeline = () => scenario('chained-vs-split.json', 'pipeline');
  const storage = () => json<Storage>('storage.json');
  /** What one chained process drains end to end, rounded down to hundreds: the divisor of the sizing rule. */
  const perProcess = () => Math.floor(e2e().throughput.median / 100) * 100;
  const spread = (s: Spread) => `${num(s.min)}-${num(s.max)}`;
  return {
    'e2e-process': () => {
      const s = e2e();
      return `${num(s.throughput.median)} check-ins/s (${spread(s.throughput)} over ${s.runs} runs), ${num(s.cpuMicrosPerCheckIn.median)} µs of faultline CPU per check-in`;
    },
    'pipeline-alone': () => {
      const s = pipeline();
      return `${num(s.throughput.median)} check-ins/s (${spread(s.throughput)} over ${s.runs} runs), ${num(s.cpuMicrosPerCheckIn.median)} µs of faultline CPU per check-in`;
    },
    'sizing-per-process': () => num(perProcess()),
    'chained-vs-split': () => link('chained-vs-split.md', from),
    'postgres-disk': () => {
      const s = storage();
      const per = s.sizes.reduce((a, x) => a + x.bytesPerCheckIn, 0) / s.sizes.length;
      const at = s.sizes.map((x) => `${num(x.bytes / GIB, 2)} GiB at ${num(x.records / 1e6)} M`).join(', ');
      return `about ${num(Math.round(per / 10) * 10)} bytes per check-in: **${num(per * 1e6 / GIB, 0)} GiB per million check-ins** (${at})`;
    },
    'storage-source': () => link('storage.md', from),
    'measured-table': () => measuredTable(from, { e2e: e2e(), pipeline: pipeline(), storage: storage() }),
  };
}

function measuredTable(from: 'root' | 'docs', r: { e2e: BenchScenario & { runs: number }; pipeline: BenchScenario & { runs: number }; storage: Storage }): string {
  const dnp3 = json<Dnp3Run>('dnp3-1000.json');
  const load = dnp3.loadAverage.start ?? [];
  const alarms = alarmRun(text('alarms.md'));
  const incidents = json<Incidents>('incidents.json');
  const targets = readTargets(r.storage);
  const rows: [string, string, string][] = [
    ['end to end from SQS to Postgres, one chained process', `${num(r.e2e.throughput.median)} check-ins/s, ${num(r.e2e.cpuMicrosPerCheckIn.median)} µs of faultline CPU each (${r.e2e.runs} runs)`, link('chained-vs-split.md', from)],
    ['pipeline alone, fi.raw.v1 to Postgres', `${num(r.pipeline.throughput.median)} check-ins/s, ${num(r.pipeline.cpuMicrosPerCheckIn.median)} µs each (${r.pipeline.runs} runs)`, link('chained-vs-split.md', from)],
    [`a fault from SQS to the SCADA master's event (unsolicited), ${num(dnp3.devices)} devices, load average ${load[0] ?? '?'} on 2 cores`,
      `DNP3 p50 ${num(dnp3.latency.dnp3.totalMs.p50, 1)} ms, p95 ${num(dnp3.latency.dnp3.totalMs.p95, 1)} ms; IEC 104 p50 ${num(dnp3.latency.iec104.totalMs.p50, 1)} ms, p95 ${num(dnp3.latency.iec104.totalMs.p95, 1)} ms (${dnp3.latency.faults} faults)`,
      link('dnp3-1000.md', from)],
    ['a fault from SQS to a verified alarm webhook at 1,000 check-ins/s', `p50 ${num(alarms.p50)} ms, p99 ${num(alarms.p99)} ms (1 run)`, link('alarms.md', from)],
    [`${num(incidents.feeders)} feeder incidents at once on ${num(incidents.devices)} indicators`,
      `${incidents.correctSections === incidents.incidents ? 'all' : `${num(incidents.correctSections)} of ${num(incidents.incidents)}`} located in the right section, p99 ${num(incidents.locatedMs.p99)} ms (1 run)`, link('incidents.md', from)],
    [`read API at ${num(targets.size / 1e6)}M check-ins, first pages and per-device reads`,
      `both targets (p99 under 50 ms, within 2x of ${num(r.storage.sizes[0]!.records / 1e6)}M) met for ${targets.met} of ${targets.rows} endpoint rows at ${r.storage.rate}/s`, link('storage.md', from)],
    ['removing a month', `DROP of its partitions ${num(r.storage.removal.dropMs)} ms (DELETE: ${num(r.storage.removal.deleteMs / 1000, 1)} s)`, link('storage.md', from)],
  ];
  return ['', '| what | figure | result file |', '|---|---|---|', ...rows.map((c) => `| ${c.join(' | ')} |`), ''].join('\n');
}

/** `<!-- figure:NAME -->...<!-- /figure -->`, inline or over lines. */
export const MARKER = /<!-- figure:([a-z0-9-]+) -->([\s\S]*?)<!-- \/figure -->/g;

/** The page with every marked figure rendered, and the names it marks that no figure has. */
export function render(page: string, from: 'root' | 'docs'): { text: string; unknown: string[] } {
  const all = figures(from);
  const unknown: string[] = [];
  const out = page.replace(MARKER, (whole, name: string) => {
    const f = all[name];
    if (!f) { unknown.push(name); return whole; }
    return `<!-- figure:${name} -->${f()}<!-- /figure -->`;
  });
  return { text: out, unknown };
}

/** The pages that quote figures, with where they sit. */
export const PAGES: { path: string; from: 'root' | 'docs' }[] = [
  { path: 'README.md', from: 'root' },
  { path: 'docs/operations.md', from: 'docs' },
  { path: 'docs/production-shape.md', from: 'docs' },
];
