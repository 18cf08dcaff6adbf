// One suite file as test/run.ts runs it: its own Node process in its own process group, under a time limit
// that kills the whole group (the suite and whatever it started: `faultline start`, peers, browsers; infra/
// servers run in sessions of their own, infra/lib.sh) and counts
// the suite failed by name; its uvu summary and its TALLY lines read from the output
// (docs/decisions.md#signals-during-start-up-and-the-test-runners-guards).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { suiteArgs } from './suite-args.js';
import { notCountedSuites, parseTallies, type Tally } from './tally.js';

export interface Outcome { passed: number; failed: number; skipped: number }

/** A suite's time limit: 15 minutes, more for the few suites that need it (their slowest CI runs, with room). */
const DEFAULT_LIMIT_MIN = 15;
const LIMIT_MIN: Record<string, number> = {
  // Three brokers, nine processes, a broker SIGKILL, a pipeline SIGKILL and a rolling restart.
  'test/resilience/cluster.test.ts': 40,
  // Every process kind on its own three-broker cluster, started from the example files.
  'test/integration/ops/production-shape.test.ts': 25,
  // Thousands of messages through a 60 s outage of each server in turn.
  'test/resilience/faults.test.ts': 25,
  'test/resilience/poison.test.ts': 25,
};

/** SUITE_TIME_LIMIT_MS overrides every limit (the runner's own tests; a one-off slow machine). */
export function timeLimitMs(file: string, env: NodeJS.ProcessEnv = process.env): number {
  if (env.SUITE_TIME_LIMIT_MS) return Number(env.SUITE_TIME_LIMIT_MS);
  return (LIMIT_MIN[file] ?? DEFAULT_LIMIT_MIN) * 60_000;
}

export interface SuiteRun {
  code: number;
  output: string;
  /** uvu's closing counts; null when the process ended without them (a crash, the time limit). */
  outcome: Outcome | null;
  /** Killed by the time limit (ms), or null. */
  killedAfterMs: number | null;
  tally: Tally | null;
  /** Suites that print a TALLY but counted nothing this time: they failed before counting, or were killed. */
  notCounted: string[];
}

// uvu closes a process with "Total: N / Passed: N / Skipped: N"; anything else (a crash, a time limit before
// the summary) is one failure for that file.
export function parseUvu(output: string): Outcome | null {
  const clean = output.replace(new RegExp(String.fromCharCode(27) + '\\[[0-9;]*m', 'g'), '');
  const total = /Total:\s+(\d+)/.exec(clean);
  const passed = /Passed:\s+(\d+)/.exec(clean);
  const skipped = /Skipped:\s+(\d+)/.exec(clean);
  if (!total || !passed) return null;
  const t = Number(total[1]), p = Number(passed[1]), s = skipped ? Number(skipped[1]) : 0;
  return { passed: p, skipped: s, failed: t - p - s };
}

/** `write`: where the output goes as it comes (the console unless `echo` is false; test/run.ts gives the suite's block). */
export function runSuite(file: string, { env = {}, node = process.execPath, cwd, limitMs = timeLimitMs(file), echo = true, write = (text: string) => { process.stdout.write(text); } }: { env?: NodeJS.ProcessEnv; node?: string; cwd: string; limitMs?: number; echo?: boolean; write?: (text: string) => void }): Promise<SuiteRun> {
  return new Promise((resolve) => {
    // detached: a process group of its own, so the time limit ends everything the suite started.
    const child = spawn(node, suiteArgs(file), { cwd, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    const onData = (chunk: Buffer) => { output += chunk.toString(); if (echo) write(chunk.toString()); };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    let killedAfterMs: number | null = null;
    const limit = setTimeout(() => {
      killedAfterMs = limitMs;
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* ended meanwhile */ }
    }, limitMs);
    child.on('close', (code, signal) => {
      clearTimeout(limit);
      const tallies = readFileSync(`${cwd}/${file}`, 'utf8').includes('reportTally(');
      const notCounted = notCountedSuites(output);
      if (tallies && !output.includes('TALLY ')) notCounted.push(file);
      resolve({ code: code ?? (signal ? 128 : 1), output, outcome: killedAfterMs === null ? parseUvu(output) : null, killedAfterMs, tally: parseTallies(output), notCounted });
    });
  });
}

/** What a suite run adds to the totals, and the line naming it among the failures (null: it passed). */
export function account(label: string, run: SuiteRun): Outcome & { failure: string | null } {
  if (run.killedAfterMs !== null) return { passed: 0, skipped: 0, failed: 1, failure: `${label} (killed: still running at its time limit of ${run.killedAfterMs / 60_000} min)` };
  if (!run.outcome) return { passed: 0, skipped: 0, failed: 1, failure: `${label} (exit ${run.code}, no uvu summary)` };
  const { passed, skipped, failed } = run.outcome;
  // A suite that exits non-zero with every test passed (a crash in test.after) counts one failure.
  if (failed > 0 || run.code !== 0) return { passed, skipped, failed: Math.max(failed, 1), failure: label };
  return { passed, skipped, failed, failure: null };
}
