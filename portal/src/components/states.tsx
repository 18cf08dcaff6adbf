// Loading, empty and error states. Each says what is happening and what to do; they take the space the
// content will take, so the layout does not jump when data arrives.
import type { ComponentChildren } from 'preact';
import type { ApiError } from '../api/client';
import { formatSecondTime } from '../time';

export function ErrorState({ error, onRetry }: { error: ApiError; onRetry?: () => void }) {
  const what = error.code === 'NETWORK' ? 'The server cannot be reached.'
    : error.code === 'NOT_FOUND' ? 'Not found, or not in your groups.'
    : error.code === 'BAD_PARAMETER' || error.code === 'UNKNOWN_PARAMETER' ? 'The server refused this query.'
    : 'The server could not answer.';
  return (
    <div class="notice notice-error" role="alert">
      <strong>{what}</strong> <span>{error.message}</span>
      {onRetry && <button type="button" class="button" onClick={onRetry}>Try again</button>}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="notice notice-empty" role="status">
      <strong>{title}</strong> {children}
    </div>
  );
}

/** "Updated 2026-Nov-23 10:42 AM (America/Chicago)" / "Loading…" in a fixed-width slot: the user's zone, like the rows. */
export function StatusLine({ loading, updatedAt, extra, timeZone }: { loading: boolean; updatedAt: Date | null; extra?: string; timeZone: string }) {
  const at = updatedAt ? `Updated ${formatSecondTime(updatedAt.getTime(), timeZone)} (${timeZone})` : '';
  const text = loading && !updatedAt ? 'Loading…' : updatedAt ? `${at}${loading ? ' · refreshing…' : ''}` : '';
  return <p class="status-line" aria-live="polite" data-testid="status-line" data-updated={updatedAt?.getTime()}>{text}{extra ? ` · ${extra}` : ''}</p>;
}
