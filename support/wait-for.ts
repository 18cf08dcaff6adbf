// Polls `check` until it returns a truthy value or `timeoutMs` passes; the error names what was awaited.
import { setTimeout as sleep } from 'node:timers/promises';

export async function waitFor<T>(what: string, check: () => Promise<T> | T, { timeoutMs = 30_000, intervalMs = 50 } = {}): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await sleep(intervalMs);
  }
}

export const randomName = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
