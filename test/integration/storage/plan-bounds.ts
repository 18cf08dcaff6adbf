// The plan-bound checker (issue 45 point 1, docs/decisions.md#reads-bounded-by-the-answer): the statements a
// route really sends, recorded on the app's pool, explained as production plans them (a prepared statement under
// the pool's force_generic_plan, or its plannedPerRequest sibling's force_custom_plan: db/pool.ts), and the shared buffers each one touched (hit + read) compared
// between two table sizes an order of magnitude apart. Buffers, never times: they do not swing with the host.
import pg from 'pg';
import { recordingPool } from '../../helpers/recording-pool.js';

/** One statement as the app sent it; `plannedPerRequest` when it went to the pool that plans each request with its values. */
export interface Sent { text: string; values: unknown[]; plannedPerRequest?: true }

/**
 * How much a statement's buffers may grow from the small size to the large one (ten times the check-ins) and
 * still be bounded by its answer: twice, plus a few pages. An index walk that stops at its page touches the same
 * leaf and heap pages at both sizes; what grows is a B-tree level per index probed and the odd page boundary a
 * page of rows now straddles. A scan, a sort or a count over history grows with the size: ten times.
 */
export const BOUND = { factor: 2, slack: 16 } as const;

/** Whether `large` buffers at the large size stay within BOUND of `small` at the small size. */
export function isBounded(small: number, large: number): boolean {
  return large <= BOUND.factor * small + BOUND.slack;
}

/**
 * What the walk's unbounded statements say against the list of those known unbounded: `unexpected`, unbounded
 * and not listed (a regression), and `nowBounded`, listed but bounded now (or no longer asked). The test fails on
 * either, so the list can only shrink.
 */
export function verdict(unbounded: readonly string[], known: readonly string[]): { unexpected: string[]; nowBounded: string[] } {
  return { unexpected: unbounded.filter((k) => !known.includes(k)), nowBounded: known.filter((k) => !unbounded.includes(k)) };
}

/** `pool` as the app uses it, with every statement it is sent (a text, or a config such as a prepared statement) appended to `sent`. */
export const recording = (pool: pg.Pool, sent: Sent[]): pg.Pool => recordingPool(pool, ({ text, values, plannedPerRequest }) => { sent.push({ text, values, ...(plannedPerRequest ? { plannedPerRequest } : {}) }); });

/** Statements worth explaining: reads (an EXPLAIN the app sends itself, for an estimate, is not run again). */
export const isRead = (q: Sent) => /^\s*(select|with)\b/i.test(q.text);

interface PlanNode { 'Shared Hit Blocks': number; 'Shared Read Blocks': number; 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: PlanNode[] }

/** The value's text as pg sends it (dates as ISO instants, arrays as array literals, objects as JSON). */
function textOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return `{${value.map((v) => { const t = textOf(v); return t === null ? 'NULL' : `"${t.replace(/["\\]/g, '\\$&')}"`; }).join(',')}}`;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** The value as a SQL literal of unknown type: the prepared statement's parameter type reads it. */
function literal(value: unknown): string {
  const text = textOf(value);
  return text === null ? 'null' : pg.escapeLiteral(text);
}

export interface Explained {
  buffers: number;
  /** The scans of the plan, `Node Type on relation (index)`, to say what a statement read. */
  scans: string[];
}

let planNumber = 0;

/**
 * `q` prepared on one connection of `pool` and run under EXPLAIN (ANALYZE, BUFFERS): the plan the app's
 * prepared statements and parameterised queries get (generic, db/pool.ts; with its values where it was planned per
 * request), and the shared buffers it touched.
 */
export async function explain(pool: pg.Pool, q: Sent): Promise<Explained> {
  const client = await pool.connect();
  const name = `fl_plan_check_${++planNumber}`;
  try {
    if (q.plannedPerRequest) await client.query('set plan_cache_mode = force_custom_plan');
    await client.query(`prepare ${name} as ${q.text}`);
    const args = q.values.length ? `(${q.values.map(literal).join(', ')})` : '';
    const { rows: [row] } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`explain (analyze, buffers, format json) execute ${name}${args}`);
    const top = row!['QUERY PLAN'][0].Plan;
    const scans: string[] = [];
    const walk = (n: PlanNode) => {
      if (n['Relation Name']) scans.push(`${n['Node Type']} on ${n['Relation Name']}${n['Index Name'] ? ` (${n['Index Name']})` : ''}`);
      for (const c of n.Plans ?? []) walk(c);
    };
    walk(top);
    return { buffers: top['Shared Hit Blocks'] + top['Shared Read Blocks'], scans };
  } finally {
    await client.query(`deallocate ${name}`).catch(() => {});
    await client.query('reset plan_cache_mode').catch(() => {});
    client.release();
  }
}
