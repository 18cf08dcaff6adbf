// Loads one API answer and keeps the previous one on screen while the next loads, so a refresh or a new page
// never empties the view (no layout shift). `refreshMs` polls while the tab is visible.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { apiGet, type ApiError, type Query } from './api/client';

export interface ApiState<T> {
  data: T | null;
  error: ApiError | null;
  loading: boolean;
  /** When the shown data arrived. */
  updatedAt: Date | null;
  reload(): void;
}

export function useApi<T>(path: string | null, query: Query = {}, { refreshMs = 0 } = {}): ApiState<T> {
  const [state, setState] = useState<Omit<ApiState<T>, 'reload'>>({ data: null, error: null, loading: path !== null, updatedAt: null });
  const [tick, setTick] = useState(0);
  const key = path === null ? null : path + JSON.stringify(query);
  const keyRef = useRef(key);
  keyRef.current = key;

  useEffect(() => {
    if (path === null) return;
    const abort = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    apiGet<T>(path, query, abort.signal).then(
      (data) => { if (!abort.signal.aborted) setState({ data, error: null, loading: false, updatedAt: new Date() }); },
      (error: unknown) => {
        if (abort.signal.aborted || (error as Error).name === 'AbortError') return;
        setState((s) => ({ ...s, error: error as ApiError, loading: false }));
      },
    );
    return () => abort.abort();
    // key stands for path + query
  }, [key, tick]);

  useEffect(() => {
    if (!refreshMs || path === null) return;
    const id = setInterval(() => { if (document.visibilityState === 'visible') setTick((t) => t + 1); }, refreshMs);
    return () => clearInterval(id);
  }, [refreshMs, path]);

  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}
