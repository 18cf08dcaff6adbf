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

/** Print a suite's counts; call once per suite file, after its tests ran (e.g. in `test.after`). */
export function reportTally(suite: string, counts: Partial<Tally>): void {
  console.log(TALLY_PREFIX + JSON.stringify({ suite, ...emptyTally(), ...counts }));
}

/**
 * Every TALLY line in a suite's output, summed. A line may start with uvu's progress dots ("• • TALLY {...}"),
 * since uvu writes them without a newline.
 */
export function parseTallies(output: string): Tally | null {
  let sum: Tally | null = null;
  for (const line of output.split('\n')) {
    const at = line.indexOf(TALLY_PREFIX);
    if (at < 0) continue;
    const parsed = JSON.parse(line.slice(at + TALLY_PREFIX.length)) as Partial<Tally>;
    sum = addTally(sum ?? emptyTally(), parsed);
  }
  return sum;
}

export function addTally(a: Tally, b: Partial<Tally>): Tally {
  const out = { ...a };
  for (const key of Object.keys(out) as (keyof Tally)[]) out[key] += Number(b[key] ?? 0);
  return out;
}
