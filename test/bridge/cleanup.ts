// Per-test clean-up for the bridge suites. uvu swallows an error thrown by an after.each hook and then
// reports the file as passed with fewer tests, so a failing clean-up (e.g. DeleteQueue while the server
// restarts) is printed here instead of thrown, and every step still runs.
export type CleanupStep = () => Promise<unknown>;

export function cleanupList(): { add(step: CleanupStep): void; run(): Promise<void> } {
  const steps: CleanupStep[] = [];
  return {
    add: (step) => { steps.push(step); },
    async run() {
      for (const step of steps.splice(0).reverse()) {
        try {
          await step();
        } catch (err) {
          console.error(`clean-up step failed: ${(err as Error).message}`);
        }
      }
    },
  };
}
