// A pool as the app uses it, telling a test every statement it is sent: what a suite that checks which statements a
// request runs (how many, which text, which row mode) watches through.
import type pg from 'pg';
import { PLANNED_PER_REQUEST, plannedPerRequest } from '../../db/pool.js';

/**
 * One statement as the pool was sent it: a text, or a config (a prepared statement's `name`, `rowMode: 'array'`);
 * `plannedPerRequest` when it went to the pool's sibling that plans each request with its values (db/pool.ts).
 */
export interface SentStatement { text: string; values: unknown[]; rowMode?: string; name?: string; plannedPerRequest?: true }

/** `pool`, with `seen` called with each statement before it goes to PostgreSQL, its plannedPerRequest sibling's too. */
export function recordingPool(pool: pg.Pool, seen: (statement: SentStatement) => void): pg.Pool {
  let sibling: pg.Pool | undefined;
  return new Proxy(pool, {
    get(target, key) {
      if (key === PLANNED_PER_REQUEST) return (sibling ??= recordingPool(plannedPerRequest(target), (s) => seen({ ...s, plannedPerRequest: true })));
      if (key === 'query') {
        return (config: unknown, values?: unknown[]) => {
          if (typeof config === 'string') seen({ text: config, values: values ?? [] });
          else if (config && typeof config === 'object' && 'text' in config) {
            const c = config as { text: string; values?: unknown[]; rowMode?: string; name?: string };
            seen({ text: c.text, values: [...c.values ?? values ?? []], ...(c.rowMode ? { rowMode: c.rowMode } : {}), ...(c.name ? { name: c.name } : {}) });
          }
          return (target.query as (c: unknown, v?: unknown[]) => unknown)(config, values);
        };
      }
      const value = Reflect.get(target, key) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
