// Read statements prepared by name, so each connection plans them once (db/pool.ts keeps generic plans)
// instead of on every request: planning, not running, was most of Postgres's time for a page of 50 rows.
import { createHash } from 'node:crypto';
import type pg from 'pg';

/**
 * Distinct statement texts this process prepares at most. A text varies with the caller's choices (filters,
 * sort keys, limit), and each connection keeps every statement it prepared until it closes, in the backend's
 * memory; past this many texts a new one runs unprepared (planned per request, same answer), so no caller
 * can grow the backends without bound (docs/decisions.md#hostile-callers). The first texts seen are the
 * common ones: the portal's and the integrations' lists.
 */
export const MAX_PREPARED_TEXTS = 200;

/** Statements named by their text, up to MAX_PREPARED_TEXTS of them; past it, a plain (unnamed) query. */
function namedByText(): (text: string, values: unknown[]) => pg.QueryConfig {
  const names = new Set<string>();
  return (text, values) => {
    const name = `fl_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    if (!names.has(name)) {
      if (names.size >= MAX_PREPARED_TEXTS) return { text, values };
      names.add(name);
    }
    return { name, text, values };
  };
}

/**
 * A prepared statement named by its text: each connection plans a list's SQL once (db/pool.ts keeps generic
 * plans) instead of on every request; the values still change per request.
 */
export const prepared = namedByText();

/**
 * The same for a statement sent to the pool's plannedPerRequest sibling (db/pool.ts): parsed once per connection,
 * planned on each request with its values. Its own MAX_PREPARED_TEXTS, so neither kind crowds out the other.
 */
export const preparedPerRequest = namedByText();
