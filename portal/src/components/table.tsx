// A data table with sortable headers (buttons, so the keyboard reaches them; aria-sort says the order).
// Rows keep a fixed height and the body keeps its last rows while the next page loads.
import type { ComponentChildren } from 'preact';
import { EmptyState } from './states';

export interface Column<T> {
  key: string;
  label: string;
  /** The API's sortBy field, when the column can be sorted. */
  sortKey?: string;
  numeric?: boolean;
  /** Long text (names, details): wraps instead of widening the table past the screen. */
  wrap?: boolean;
  render?: (row: T) => ComponentChildren;
}

export interface Sort { field: string; order: 'asc' | 'desc' }

export function cell(v: unknown): ComponentChildren {
  if (v === null || v === undefined) return <span class="muted">—</span>;
  if (v === '') return <span class="muted" title="cleared by the server">(empty)</span>;
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return String(v);
}

export function DataTable<T>({ columns, rows, rowKey, sort, onSort, caption, busy }: {
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  sort?: Sort | null;
  onSort?: (s: Sort) => void;
  caption: string;
  busy?: boolean;
}) {
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={caption}>
      <table class="data-table" aria-busy={busy ? 'true' : 'false'}>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => {
              const active = sort && c.sortKey && sort.field === c.sortKey;
              const ariaSort = active ? (sort.order === 'asc' ? 'ascending' : 'descending') : c.sortKey ? 'none' : undefined;
              return (
                <th key={c.key} scope="col" aria-sort={ariaSort} class={c.numeric ? 'num' : undefined}>
                  {c.sortKey && onSort ? (
                    <button type="button" class="sort" data-sort={c.sortKey}
                      onClick={() => onSort({ field: c.sortKey!, order: active && sort.order === 'desc' ? 'asc' : 'desc' })}>
                      {c.label}<span aria-hidden="true" class="sort-mark">{active ? (sort.order === 'asc' ? ' ▲' : ' ▼') : ' ↕'}</span>
                    </button>
                  ) : c.label}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)} data-key={rowKey(row)}>
              {columns.map((c) => <td key={c.key} class={c.numeric ? 'num' : c.wrap ? 'wrap' : undefined} data-col={c.key}>{c.render ? c.render(row) : cell((row as Record<string, unknown>)[c.key])}</td>)}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Pager({ page, limit, total, onPage, onLimit }: { page: number; limit: number; total: number; onPage: (p: number) => void; onLimit?: (l: number) => void }) {
  const pages = Math.max(1, Math.ceil(total / limit));
  const first = total === 0 ? 0 : page * limit + 1;
  const last = Math.min(total, (page + 1) * limit);
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" class="button" disabled={page <= 0} onClick={() => onPage(page - 1)}>← Previous</button>
      <span class="pager-text" data-testid="pager-text">{first}–{last} of {total.toLocaleString('en-US')} · page {page + 1} of {pages}</span>
      <button type="button" class="button" disabled={page + 1 >= pages} onClick={() => onPage(page + 1)}>Next →</button>
      {onLimit && (
        <label class="inline">Rows
          <select value={String(limit)} onChange={(e) => onLimit(Number((e.currentTarget as HTMLSelectElement).value))}>
            {[25, 50, 100, 200].map((n) => <option key={n} value={n}>{n}</option>)}
          </select>
        </label>
      )}
    </nav>
  );
}

/**
 * A page of a list: the table and its pager; the empty state when nothing matches; and, for a page past the
 * end (a shared URL after rows went away), a notice with the pager so the reader can step back.
 */
export function PagedRows({ total, rows, page, limit, onPage, onLimit, empty, children }: {
  total: number; rows: number; page: number; limit: number; onPage: (p: number) => void; onLimit?: (l: number) => void;
  empty: ComponentChildren; children: ComponentChildren;
}) {
  if (total === 0) return <>{empty}</>;
  const pager = <Pager page={page} limit={limit} total={total} onPage={onPage} onLimit={onLimit} />;
  if (rows === 0) {
    const last = Math.max(0, Math.ceil(total / limit) - 1);
    return (
      <>
        <EmptyState title={`Page ${page + 1} is past the end.`}>There are {total.toLocaleString('en-US')} rows on {last + 1} pages. <button type="button" class="link-button" onClick={() => onPage(last)}>Go to the last page</button></EmptyState>
        {pager}
      </>
    );
  }
  return <>{children}{pager}</>;
}
