// The pure half of `npm run bench -- --compare <ref>`: from the per-round results of the new and the old
// commit (each round runs both, interleaved, on the same generated data), the ratio new/old of every figure
// per round, and its median with the spread over the rounds. A ratio taken inside one round is what carries
// between loaded machines: both sides saw the same load (docs/benchmarks.md#compare).
import { stats, type Stats } from './stats.js';

/** The figures of a bench scenario's result (bench/common.ts ScenarioResult) that a comparison reads. */
export interface ScenarioFigures {
  throughput: Stats;
  cpuMicrosPerCheckIn?: Stats;
  cpuPerSecond?: Record<string, number>;
  latency?: { p50: Stats; p95: Stats };
}

/** One figure of a scenario, and whether a bigger value is better (throughput) or worse (CPU, latency). */
export interface Figure { name: string; unit: string; higherIsBetter: boolean; of: (r: ScenarioFigures) => number | undefined }

const perCheckIn = (r: ScenarioFigures, process: string): number | undefined => {
  const cpu = r.cpuPerSecond?.[process];
  return cpu === undefined || cpu <= 0 || !(r.throughput.median > 0) ? undefined : (cpu / r.throughput.median) * 1e6;
};

export const FIGURES: readonly Figure[] = [
  { name: 'check-ins/s', unit: '/s', higherIsBetter: true, of: (r) => r.throughput.median },
  { name: 'faultline CPU per check-in', unit: 'µs', higherIsBetter: false, of: (r) => r.cpuMicrosPerCheckIn?.median },
  { name: 'Postgres CPU per check-in', unit: 'µs', higherIsBetter: false, of: (r) => perCheckIn(r, 'postgres') },
  { name: 'Kafka CPU per check-in', unit: 'µs', higherIsBetter: false, of: (r) => perCheckIn(r, 'kafka') },
  // The SQS bridge's own process, reported where it runs apart (end-to-end bridge apart); absent elsewhere.
  { name: 'bridge CPU per check-in', unit: 'µs', higherIsBetter: false, of: (r) => perCheckIn(r, 'bridge') },
  { name: 'latency p50', unit: 'ms', higherIsBetter: false, of: (r) => r.latency?.p50.median },
  { name: 'latency p95', unit: 'ms', higherIsBetter: false, of: (r) => r.latency?.p95.median },
];

/** What one round measured for one scenario on each side. */
export interface RoundPair { round: number; scenario: string; newer: ScenarioFigures; older: ScenarioFigures }

export interface FigureComparison {
  scenario: string; figure: string; unit: string; higherIsBetter: boolean;
  newer: Stats; older: Stats;
  /** new/old, one value per round: below 1 is less of it. */
  ratio: Stats;
  rounds: number;
}

/** Every figure both sides reported, per scenario, in the order the scenarios ran. */
export function compareRounds(pairs: readonly RoundPair[]): FigureComparison[] {
  const scenarios = [...new Set(pairs.map((p) => p.scenario))];
  const out: FigureComparison[] = [];
  for (const scenario of scenarios) {
    const mine = pairs.filter((p) => p.scenario === scenario);
    for (const figure of FIGURES) {
      const both = mine.map((p) => ({ n: figure.of(p.newer), o: figure.of(p.older) }))
        .filter((x): x is { n: number; o: number } => Number.isFinite(x.n) && Number.isFinite(x.o) && x.o! > 0);
      if (both.length === 0) continue;
      out.push({
        scenario, figure: figure.name, unit: figure.unit, higherIsBetter: figure.higherIsBetter,
        newer: stats(both.map((x) => x.n)), older: stats(both.map((x) => x.o)),
        ratio: stats(both.map((x) => x.n / x.o)), rounds: both.length,
      });
    }
  }
  return out;
}

/** "better", "worse" or "within noise": the whole spread of the per-round ratios must sit on one side of 1. */
export function verdict(c: FigureComparison): 'better' | 'worse' | 'within noise' {
  const below = c.ratio.max < 1;
  const above = c.ratio.min > 1;
  if (!below && !above) return 'within noise';
  return below !== c.higherIsBetter ? 'better' : 'worse';
}

const num = (n: number) => (Math.abs(n) >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1));
const spread = (s: Stats, f: (n: number) => string) => `${f(s.median)} (${f(s.min)} – ${f(s.max)})`;

export function compareMarkdown(head: { newer: string; older: string; date: string; rounds: number; options: string; machine: string }, rows: readonly FigureComparison[]): string {
  return [
    `# Benchmark A/B: ${head.newer} against ${head.older}`,
    '',
    `${head.date} · ${head.machine} · ${head.rounds} rounds, each running the old and the new commit one after the other (the order alternates per round) on the same generated data: ${head.options}.`,
    '',
    'Ratio = new / old inside one round (both sides under the same load), median over the rounds with min – max. A figure is',
    '"better" or "worse" only when every round agrees; otherwise it is within noise. *baseline* and *ceiling* run no faultline',
    'code, so their ratios show how far the machine alone moved between the two sides.',
    '',
    '| scenario | figure | old | new | new / old | verdict |',
    '|---|---|---|---|---|---|',
    ...rows.map((c) => `| ${c.scenario} | ${c.figure} (${c.unit}) | ${spread(c.older, num)} | ${spread(c.newer, num)} | ${spread(c.ratio, (n) => `${n.toFixed(2)}×`)} | ${verdict(c)} |`),
    '',
  ].join('\n');
}
