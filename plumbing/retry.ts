// The one retry policy: exponential back-off with full jitter, capped. Under test the delays shrink
// (FAULTLINE_FAST_RETRY=1, config/fast-retry.ts) so failure paths run in milliseconds, not minutes.
import { setTimeout as sleep } from 'node:timers/promises';
import { FAST_RETRY as fast } from '../config/fast-retry.js';
import { FaultlineError } from '../errors/base.js';

export interface BackoffOptions {
  initialMs?: number;
  maxMs?: number;
}

/** Delay for the n-th consecutive failure (1-based): random in [0, min(max, initial * 2^(n-1))]. */
export function backoffDelay(attempt: number, { initialMs = 200, maxMs = 30_000 }: BackoffOptions = {}): number {
  const ceiling = Math.min(maxMs, initialMs * 2 ** Math.max(0, attempt - 1));
  return fast ? Math.min(ceiling, 20) * Math.random() : ceiling * Math.random();
}

export function backoff(attempt: number, options?: BackoffOptions): Promise<void> {
  return sleep(backoffDelay(attempt, options));
}

export interface RetryOptions extends BackoffOptions {
  retries?: number;
  /**
   * Decides whether an error is worth another try; the rest are thrown at once. Default: one of ours says so
   * itself (its `retriable`, errors/base.ts); anything else is tried again.
   */
  retriable?: (err: unknown) => boolean;
  onRetry?: (err: unknown, attempt: number) => void;
}

/** Runs `fn` until it succeeds, a non-retriable error is thrown, or `retries` further attempts failed. */
const saysRetriable = (err: unknown) => !(err instanceof FaultlineError) || err.retriable;

export async function retry<T>(fn: () => Promise<T>, { retries = 5, retriable = saysRetriable, onRetry, ...delays }: RetryOptions = {}): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt > retries || !retriable(err)) throw err;
      onRetry?.(err, attempt);
      await backoff(attempt, delays);
    }
  }
}
