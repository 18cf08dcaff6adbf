// Polling with a deadline for the infra suites: uvu has no per-test timeout, so every wait on a server
// must end by itself, failing the test instead of hanging the run.
import { setTimeout as sleep } from 'node:timers/promises';

/** Calls `attempt` until it returns a value other than undefined; throws after `ms`. */
export async function pollUntil<T>(what: string, ms: number, attempt: () => Promise<T | undefined> | T | undefined, everyMs = 100): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await attempt();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}
