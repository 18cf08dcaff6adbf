// The nodes of a statement's plan that walk dm1_event_records, the page rows' lookups by key apart: what the
// critical-data suites hold a walk's cost to (rows read, index descents), under EXPLAIN ANALYZE on real PostgreSQL.
import type pg from 'pg';
import type { SentStatement } from './recording-pool.js';

export interface WalkNode { 'Relation Name'?: string; 'Index Cond'?: string; Filter?: string; 'Actual Rows': number; 'Actual Loops': number; Plans?: WalkNode[] }

/** `statement` run under EXPLAIN (ANALYZE): its nodes on a dm1_event_records partition that are not a lookup by Event_Record_ID. */
export async function dm1WalkNodes(pool: pg.Pool, statement: SentStatement): Promise<WalkNode[]> {
  const { rows: [plan] } = await pool.query<{ 'QUERY PLAN': [{ Plan: WalkNode }] }>({ text: `explain (analyze, format json) ${statement.text}`, values: statement.values });
  const out: WalkNode[] = [];
  const visit = (n: WalkNode) => {
    const lookup = `${n['Index Cond'] ?? ''} ${n.Filter ?? ''}`.includes('"Event_Record_ID" = ');
    if (n['Relation Name']?.startsWith('dm1_event_records') && !lookup) out.push(n);
    for (const c of n.Plans ?? []) visit(c);
  };
  visit(plan!['QUERY PLAN'][0].Plan);
  return out;
}
