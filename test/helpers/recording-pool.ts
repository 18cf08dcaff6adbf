// A pool as the app uses it, telling a test every statement it is sent: what a suite that checks which statements a
// request runs (how many, which text, which row mode) watches through.
import type pg from 'pg';

/** One statement as the pool was sent it: a text, or a config (a prepared statement's `name`, `rowMode: 'array'`). */
export interface SentStatement { text: string; values: unknown[]; rowMode?: string; name?: string }

/** `pool`, with `seen` called with each statement before it goes to PostgreSQL. */
export function recordingPool(pool: pg.Pool, seen: (statement: SentStatement) => void): pg.Pool {
  return new Proxy(pool, {
    get(target, key) {
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
