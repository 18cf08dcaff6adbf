// The counts the resilience and security suites report (issue #7): each suite prints one `TALLY {json}`
// line, and test/run.ts sums them into the closing summary (faults injected, messages sent/stored/
// duplicated/lost, bad inputs and attacks tried/refused). Counting happens in the suites; this file only
// fixes the shape, so the runner and the suites can't drift apart.
export interface Tally {
  faultsInjected: number;
  messagesSent: number;
  messagesStored: number;
  duplicated: number;
  lost: number;
  badInputsTried: number;
  badInputsRefused: number;
  attacksTried: number;
  attacksRefused: number;
}

export const TALLY_PREFIX = 'TALLY ';

export function emptyTally(): Tally {
  return {
    faultsInjected: 0, messagesSent: 0, messagesStored: 0, duplicated: 0, lost: 0,
    badInputsTried: 0, badInputsRefused: 0, attacksTried: 0, attacksRefused: 0,
  };
}

/**
 * Print a suite's counts; call once per suite file, after its tests ran (e.g. in `test.after`). Only what was
 * counted: `null` when the suite failed before it could count (its set-up broke, its comparison never ran), and
 * the summary says "not counted" for it instead of summing a guess such as "every message lost".
 */
export function reportTally(suite: string, counts: Partial<Tally> | null): void {
  console.log(TALLY_PREFIX + JSON.stringify(counts ? { suite, ...emptyTally(), ...counts } : { suite, notCounted: true }));
}

const tallyLines = (output: string) => output.split('\n').flatMap((line) => {
  const at = line.indexOf(TALLY_PREFIX);
  return at < 0 ? [] : [JSON.parse(line.slice(at + TALLY_PREFIX.length)) as Partial<Tally> & { suite?: string; notCounted?: boolean }];
});

/** The suites whose TALLY line says they counted nothing. */
export function notCountedSuites(output: string): string[] {
  return tallyLines(output).filter((t) => t.notCounted).map((t) => t.suite ?? '?');
}

/**
 * Every TALLY line in a suite's output, summed. A line may start with uvu's progress dots ("• • TALLY {...}"),
 * since uvu writes them without a newline.
 */
export function parseTallies(output: string): Tally | null {
  let sum: Tally | null = null;
  for (const parsed of tallyLines(output)) if (!parsed.notCounted) sum = addTally(sum ?? emptyTally(), parsed);
  return sum;
}

/** The closing summary's lines: the sums, then each suite that counted nothing, named. */
export function tallySummary(t: Tally | null, notCounted: string[]): string[] {
  const lines = ['Resilience and security:'];
  if (t) {
    lines.push(`  faults injected ${t.faultsInjected}`);
    lines.push(`  messages sent ${t.messagesSent}, stored ${t.messagesStored}, duplicated ${t.duplicated}, lost ${t.lost}`);
    lines.push(`  bad inputs tried ${t.badInputsTried}, refused ${t.badInputsRefused}`);
    lines.push(`  attacks tried ${t.attacksTried}, refused ${t.attacksRefused}`);
  }
  for (const suite of notCounted) lines.push(`  not counted: ${suite} (it failed or was stopped before counting; its tests say why)`);
  return lines;
}

export function addTally(a: Tally, b: Partial<Tally>): Tally {
  const out = { ...a };
  for (const key of Object.keys(out) as (keyof Tally)[]) out[key] += Number(b[key] ?? 0);
  return out;
}
