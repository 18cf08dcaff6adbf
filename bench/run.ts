// `npm run bench -- [--quick] [--scenario baseline,ceiling,end-to-end,...] [--messages N] [--devices N] [--runs N]
//   [--rate N (the @rate scenarios, default 2000)] [--baseline-pause-empty] [--processes N (end-to-end: faultline
//   start processes, default 1)] [--no-infra] [--report NAME (default summary, quick for --quick)]
//   [--compare <git-ref> (A/B: this checkout against that commit, interleaved; compare.ts)]`
//
// Runs the scenarios in one run on the same generated data (check-ins with 3 events and 24 hourly
// averages), prints one table with ours / baseline and ours / ceiling ("ours" = end-to-end), and writes
// bench/results/<report>.md, .json and .svg (stored check-ins per second and median latency over time). Every
// figure is the median of the runs, with min and max. Progress lines go to stderr.
//
//   baseline, ceiling, pipeline and end-to-end (each chained and fully split, end-to-end also at a fixed
//   rate), embedded, stages: this process (bench/*.bench.ts); faultline itself runs as child processes
//   api, dnp3: their own bench scripts as child processes (large fixtures of their own); full run only
//
//   quick: 1,500 check-ins, 1,000 devices, 3 runs, without api and dnp3 (under 5 minutes on 2 cores);
//          writes bench/results/quick.*
//   full:  10,000 check-ins, 10,000 devices, 3 runs, every scenario
import { execSync, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runBaseline } from './baseline.bench.js';
import { runCeiling } from './ceiling.bench.js';
import type { ScenarioOptions, ScenarioResult } from './common.js';
import { progress } from './common.js';
import { runEndToEnd } from './end-to-end.bench.js';
import { svgChart } from './chart.js';
import { machineInfo } from '../support/machine.js';
import { runStages, stagesMarkdown, type StagesResult } from './stages.bench.js';
import { runPipelineAlone } from './pipeline.bench.js';
import { runCompare } from './compare.js';

/** A bench script run as a child process; its Markdown report goes into the summary. */
interface ChildBench { scenario: string; report: string; failed?: boolean }

type Scenario = (o: ScenarioOptions) => Promise<ScenarioResult>;

/**
 * The scenarios whose faultline runs only in `faultline start` children (bench/end-to-end.bench.ts), never in
 * this process: `--compare` measures the older commit with this harness, its product taken from the older work
 * tree (BENCH_PRODUCT_ROOT; compare.ts).
 */
const END_TO_END: Record<string, Scenario> = {
  'end-to-end': (o) => runEndToEnd(o, { processes: Number(values.processes ?? 1) }),
  'end-to-end-split': (o) => runEndToEnd(o, { processes: Number(values.processes ?? 1), split: true }),
  'end-to-end-bridge-apart': (o) => runEndToEnd(o, { bridgeApart: true }),
  'end-to-end@rate': (o) => runEndToEnd(o, { rate: Number(values.rate ?? 2000), processes: Number(values.processes ?? 1) }),
  'end-to-end-split@rate': (o) => runEndToEnd(o, { rate: Number(values.rate ?? 2000), processes: Number(values.processes ?? 1), split: true }),
  embedded: (o) => runEndToEnd(o, { embedded: true }),
};
const PRODUCT_IN_CHILDREN: ReadonlySet<string> = new Set(Object.keys(END_TO_END));

const SCENARIOS: Record<string, Scenario> = {
  baseline: (o) => runBaseline(o, { pause: values['baseline-pause-empty'] ? 'empty' : 'always' }),
  ceiling: runCeiling,
  pipeline: (o) => runPipelineAlone(o),
  'pipeline-split': (o) => runPipelineAlone(o, { split: true }),
  ...END_TO_END,
  stages: runStages,
};
const CHILD_SCENARIOS: Record<string, string[]> = {
  api: ['bench/api.bench.ts'],
  dnp3: ['bench/dnp3.bench.ts'],
};
const QUICK_SKIPS = new Set(Object.keys(CHILD_SCENARIOS));

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false }, scenario: { type: 'string' },
    messages: { type: 'string' }, devices: { type: 'string' }, runs: { type: 'string' }, 'no-infra': { type: 'boolean', default: false }, report: { type: 'string' },
    'baseline-pause-empty': { type: 'boolean', default: false }, processes: { type: 'string' }, rate: { type: 'string' },
    compare: { type: 'string' },
  },
});
const quick = values.quick;
// The quick run has its own report, so it never overwrites the full run's.
const report = values.report ?? (quick ? 'quick' : 'summary');
if (!/^[\w.-]+$/.test(report)) throw new Error(`--report: "${report}" is not a plain file name`);
const options: ScenarioOptions = {
  messages: Number(values.messages ?? (quick ? 1500 : 10000)),
  devices: Number(values.devices ?? (quick ? 1000 : 10000)),
  runs: Number(values.runs ?? 3),
};
const known = [...Object.keys(SCENARIOS), ...Object.keys(CHILD_SCENARIOS)];
// A comparison runs the in-process scenarios only (the child benches report in a format of their own).
const skipped = (s: string) => (quick && QUICK_SKIPS.has(s)) || (values.compare !== undefined && CHILD_SCENARIOS[s] !== undefined);
const chosen = (values.scenario?.split(',') ?? known.filter((s) => !skipped(s))).map((s) => s.trim()).filter(Boolean);
for (const s of chosen) if (!known.includes(s)) throw new Error(`unknown scenario "${s}" (known: ${known.join(', ')})`);

/** Runs a child bench; its report is the newest bench/results/<scenario>*.md it wrote. */
function childBench(scenario: string): ChildBench {
  const started = Date.now();
  const run = spawnSync(process.execPath, ['--import', 'tsx', ...CHILD_SCENARIOS[scenario]!], { cwd: new URL('..', import.meta.url).pathname, stdio: ['ignore', 'inherit', 'inherit'] });
  if (run.status !== 0) throw new Error(`bench ${scenario} exited ${run.status}`);
  const dir = new URL('./results/', import.meta.url);
  const fresh = readdirSync(dir).filter((f) => f.startsWith(scenario) && f.endsWith('.md'))
    .map((f) => ({ f, at: statSync(new URL(f, dir)).mtimeMs })).filter((x) => x.at >= started).sort((a, b) => b.at - a.at)[0];
  if (!fresh) throw new Error(`bench ${scenario} wrote no bench/results/${scenario}*.md`);
  // The child's title becomes a section of the summary.
  return { scenario, report: readFileSync(new URL(fresh.f, dir), 'utf8').replace(/^# /, '## ') };
}

const fmt = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '-' : Math.round(n).toLocaleString('en-US'));
const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? '-' : `${(a / b).toFixed(2)}×`);

async function main(): Promise<void> {
  progress(`bench: ${chosen.join(', ')}; ${options.messages} check-ins (3 events, 24 hourly averages), ${options.devices} devices, ${options.runs} runs${quick ? ' (quick)' : ''}`);
  if (values.compare !== undefined) {
    const inChild = chosen.filter((s) => CHILD_SCENARIOS[s]);
    if (inChild.length) throw new Error(`--compare runs the in-process scenarios only, not ${inChild.join(', ')} (they report in their own format)`);
  }
  if (!values['no-infra']) {
    try { execSync('bash infra/up.sh', { stdio: ['ignore', 'inherit', 'inherit'] }); } catch { progress('bench: infra/up.sh failed (servers already running elsewhere?); going on with the configured endpoints'); }
  }
  if (values.compare !== undefined) return runCompare(values.compare, chosen, options, { reportName: values.report, productInChildren: PRODUCT_IN_CHILDREN });
  const results: ScenarioResult[] = [];
  const children: ChildBench[] = [];
  const started = performance.now();
  for (const name of chosen) {
    progress(`bench: scenario ${name}`);
    if (!CHILD_SCENARIOS[name]) results.push(await SCENARIOS[name]!(options));
    else {
      // A child bench that fails (a refused request, a timeout) is reported in the summary, not allowed to
      // throw away the scenarios measured before it; the run still exits non-zero.
      try { children.push(childBench(name)); } catch (err) {
        progress(`bench: scenario ${name} failed: ${(err as Error).message}`);
        children.push({ scenario: name, report: `## ${name}\n\n**Failed:** ${(err as Error).message} (its output is above in the run's log).\n`, failed: true });
      }
    }
  }
  const stages = results.find((r): r is StagesResult => 'stages' in r);
  const by = (s: string) => results.find((r) => r.scenario === s);
  const ours = by('end-to-end')?.throughput.median;
  const baseline = by('baseline')?.throughput.median;
  const ceiling = by('ceiling')?.throughput.median;
  const split = by('end-to-end split')?.throughput.median;
  const pipelineAlone = by('pipeline')?.throughput.median;
  const machine = machineInfo();
  const summary = {
    machine, quick, options, seconds: Math.round((performance.now() - started) / 1000),
    ratios: {
      oursOverBaseline: ours !== undefined && baseline !== undefined ? ours / baseline : null, oursOverCeiling: ours !== undefined && ceiling !== undefined ? ours / ceiling : null,
      chainedOverSplit: ours !== undefined && split !== undefined ? ours / split : null, pipelineOverCeiling: pipelineAlone !== undefined && ceiling !== undefined ? pipelineAlone / ceiling : null,
    },
    results,
    children: children.map((c) => c.scenario),
  };
  const rows = results.map((r) => {
    const lat = r.latency ? `${fmt(r.latency.p50.median)} / ${fmt(r.latency.p95.median)} / ${fmt(r.latency.p99.median)}` : '-';
    const cpu = r.cpuMicrosPerCheckIn ? fmt(r.cpuMicrosPerCheckIn.median) : '-';
    return `| ${r.scenario} | ${fmt(r.throughput.median)} | ${fmt(r.throughput.min)} – ${fmt(r.throughput.max)} | ${cpu} | ${lat} | ${r.note} |`;
  });
  const md = [
    `# Benchmark summary${quick ? ' (quick)' : ''}`,
    '',
    `${machine.date} · commit ${machine.commit} · Node ${machine.node} · ${machine.cores} cores (${machine.cpu}) · ${machine.memoryGiB} GiB · ${machine.servers}`,
    '',
    `${options.messages.toLocaleString('en-US')} check-ins with 3 events and 24 hourly averages each, ${options.devices.toLocaleString('en-US')} devices, the same messages in every scenario; ${options.runs} runs each (median, min – max). Total ${summary.seconds} s.`,
    '',
    '| scenario | check-ins/s (median) | min – max | faultline CPU µs per check-in | latency p50 / p95 / p99 ms | what |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    ...results.filter((r) => r.cpuPerSecond).map((r) => `${r.scenario}: CPU seconds per wall second ${Object.entries(r.cpuPerSecond!).filter(([, v]) => v > 0).map(([k, v]) => `${k} ${v}`).join(', ')}; bottleneck **${r.bottleneck ?? '?'}**${r.bottleneck === 'faultline' ? ' (the Node.js process running bridge and stages, one core)' : ''}.`),
    '',
    `**ours / baseline: ${ratio(ours, baseline)}** · **ours / ceiling: ${ratio(ours, ceiling)}** (ours = end-to-end, chained) · **chained / split end to end: ${ratio(ours, split)}** · **pipeline alone / ceiling: ${ratio(pipelineAlone, ceiling)}**`,
    '',
    ...(stages ? ['## Per stage', '', ...stagesMarkdown(stages)] : []),
    ...children.flatMap((c) => [c.report, '']),
    'How to read it: *baseline* is the spec\'s own single-poller, row-at-a-time design on the same data; *ceiling* is how fast',
    'Postgres takes the same rows by COPY with no Kafka and no rules. End-to-end latency is measured while the messages are',
    'sent into SQS faster than the pipeline drains them, so it includes the queue backlog: it is a drain latency.',
    '*pipeline* runs from a full fi.raw.v1 to Postgres with no SQS in front; *split* rows run each stage as its own consumer',
    'and topic (PIPELINE_SPLIT=every), the others chained (the default). faultline CPU counts its processes only, not the',
    'bench process that generates the load.',
    '*end-to-end @N/s* offers the same messages at a steady N per second: the latency of a normal day, as long as N is',
    'below what the pipeline drains (above it the queue grows and so does the latency). *embedded* is the same path on',
    'the embedded default. *per stage* runs each stage alone from a full topic; its row is the slowest stage.',
    '',
    `![stored check-ins per second and latency over time](${report}.svg)`,
    '',
  ].join('\n');
  writeFileSync(new URL(`./results/${report}.json`, import.meta.url), `${JSON.stringify(summary, null, 2)}\n`);
  writeFileSync(new URL(`./results/${report}.md`, import.meta.url), md);
  writeFileSync(new URL(`./results/${report}.svg`, import.meta.url), svgChart(results));
  process.stdout.write(`${md}\n`);
  const failed = children.filter((c) => c.failed).map((c) => c.scenario);
  if (failed.length) throw new Error(`bench: ${failed.join(', ')} failed (reported in ${report}.md)`);
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
