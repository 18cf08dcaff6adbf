// One thing a user does against the API (a POST, a download): busy while it runs, and its refusal kept to be
// shown. Every button and form that acts goes through it, so none writes the busy/try/catch/finally again.
// `onSettled` hears the outcome too, for a parent that shows the refusal or reloads the list.
import { useState } from 'preact/hooks';
import type { ApiError } from './api/client';

export interface Action<A extends unknown[]> {
  busy: boolean;
  /** The last run's refusal; null after a run that succeeded. */
  error: ApiError | null;
  run(...args: A): Promise<void>;
}

export function useAction<A extends unknown[]>(act: (...args: A) => Promise<unknown>, onSettled?: (error: ApiError | null) => void): Action<A> {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const run = async (...args: A) => {
    setBusy(true);
    let outcome: ApiError | null = null;
    try {
      await act(...args);
    } catch (err) {
      outcome = err as ApiError;
    } finally {
      setBusy(false);
    }
    setError(outcome);
    onSettled?.(outcome);
  };
  return { busy, error, run };
}
