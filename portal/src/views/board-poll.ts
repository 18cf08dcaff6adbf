// The board's live data: polled every POLL_MS while the tab is visible (an unchanged board is a 304), and at
// once after an action. Keeps the last board on screen while the next one loads and when a poll fails.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { ApiError } from '../api/client';
import { pollBoard, type Board } from '../api/board';

export const POLL_MS = 3_000;

export interface BoardState { board: Board | null; error: ApiError | null; updatedAt: Date | null; loading: boolean; reload(): void }

export function useBoard(cls: string): BoardState {
  const [state, setState] = useState<Omit<BoardState, 'reload'>>({ board: null, error: null, updatedAt: null, loading: true });
  const etag = useRef<string | null>(null);
  const [tick, setTick] = useState(0);

  useEffect(() => { etag.current = null; }, [cls]);

  useEffect(() => {
    const abort = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    pollBoard(cls, etag.current, abort.signal).then(
      ({ board, etag: next }) => {
        if (abort.signal.aborted) return;
        etag.current = next;
        setState((s) => ({ board: board ?? s.board, error: null, updatedAt: new Date(), loading: false }));
      },
      (error: unknown) => {
        if (abort.signal.aborted || (error as Error).name === 'AbortError') return;
        setState((s) => ({ ...s, error: error as ApiError, loading: false }));
      },
    );
    return () => abort.abort();
  }, [cls, tick]);

  useEffect(() => {
    const id = setInterval(() => { if (document.visibilityState === 'visible') setTick((t) => t + 1); }, POLL_MS);
    return () => clearInterval(id);
  }, []);

  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}
