// A V8 CPU profile (.cpuprofile, from `--cpu-prof` or BENCH_CPU_PROF) as text: self time by package or
// faultline file, then by function, as shares of the samples that were not idle. The report names what a
// process spends its CPU on without a profiler UI (docs/benchmarks.md#where-the-cpu-goes).
//   node --import tsx bench/profile-summary.ts <file.cpuprofile> [--top 25]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { summarise, table, type Profile } from '../support/cpu-profile.js';

const { values, positionals } = parseArgs({ options: { top: { type: 'string', default: '25' } }, allowPositionals: true });
const file = positionals[0];
if (!file) throw new Error('usage: bench/profile-summary.ts <file.cpuprofile> [--top 25]');
const s = summarise(JSON.parse(readFileSync(file, 'utf8')) as Profile);
const top = Number(values.top);
process.stdout.write([
  `${s.busyMs.toFixed(0)} ms busy of ${s.totalMs.toFixed(0)} ms sampled (${((100 * s.busyMs) / s.totalMs).toFixed(0)} %). Self time; a native entry such as (writev) or (garbage collector) is V8's own.`,
  '', table('package or file', s.byOwner, s.busyMs, top), '', table('function', s.byFunction, s.busyMs, top), '',
].join('\n'));
