// Building a statement from a validated ListQuery: the SQL text is assembled only from whitelisted
// constants (fields.ts, the endpoint's own query); every value a caller sent is a $n parameter.
import type { CodeStrings } from '../../domain/code-strings.js';
import { FAULT_EVENT_TYPES } from '../../domain/fault-events.js';
import { MASKED_FAULT } from '../../domain/fault-masking.js';
import { ONGOING_FAULT_TEXT } from '../../domain/ongoing-fault-codes.js';
import { badParameter } from '../errors.js';
import type { FieldDef, FieldTable } from './fields.js';
import { isDefaultOrder, type Filter, type FilterScalar, type ListQuery, type SortKey } from './list-params.js';

/** Collects parameter values and hands out their placeholders. */
export class SqlParams {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** What a filter needs to know: the configured code strings. (The mask judged the query before: routes.ts.) */
export interface FilterContext {
  codeStrings: CodeStrings;
  /** Endpoints with a connectivity field: SQL true while the device is online (endpoint.ts onlineSql). */
  online?: (p: SqlParams) => string;
}

export const CONNECTIVITY = ['online', 'offline', 'never'] as const;

/** online / offline / never exactly as device-summary counts them (offline = every device not online). */
function connectivityCondition(def: FieldDef, f: Filter, ctx: FilterContext, p: SqlParams): string {
  const v = String(f.values[0]).toLowerCase();
  if (v === 'never') return `${def.sql} is null`;
  if ((v === 'online' || v === 'offline') && !ctx.online) throw new Error('a connectivity field needs FilterContext.online');
  if (v === 'online') return `coalesce(${ctx.online!(p)}, false)`;
  if (v === 'offline') return `not coalesce(${ctx.online!(p)}, false)`;
  throw badParameter(`filterBy[${f.field}]`, `takes ${CONNECTIVITY.join(', ')}, not ${JSON.stringify(f.values[0])}.`, { field: f.field, known: CONNECTIVITY });
}

function numberValue(f: Filter, v: FilterScalar): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (!Number.isFinite(n)) throw badParameter(`filterBy[${f.field}]`, `needs a number, not ${JSON.stringify(v)}.`, { field: f.field });
  return n;
}

const textValue = (v: FilterScalar) => String(v);

/** A code set: the listed codes, plus (masked `Fault`) every code above 0. */
interface CodeSet { codes: number[]; anyPositive: boolean }

function codesOfText(f: Filter, v: FilterScalar, table: ReadonlyMap<number, string>, faultClass: boolean): CodeSet {
  if (typeof v === 'number' || (typeof v === 'string' && /^-?\d+$/.test(v.trim()))) {
    const n = Number(v);
    if (!Number.isSafeInteger(n)) throw badParameter(`filterBy[${f.field}]`, `needs an integer code or its string, not ${JSON.stringify(v)}.`, { field: f.field });
    return { codes: [n], anyPositive: false };
  }
  const wanted = String(v).toLowerCase();
  // The masked words None / Fault are accepted from everybody on the fault fields, so one portal query
  // works for every organisation (spec 3.5: a masked caller filters with nothing else).
  if (faultClass && wanted === 'fault') return { codes: [], anyPositive: true };
  if (faultClass && wanted === 'none') return { codes: [0], anyPositive: false };
  const codes = [...table].filter(([, text]) => text.toLowerCase() === wanted).map(([code]) => code);
  if (codes.length === 0) throw badParameter(`filterBy[${f.field}]`, `has no code named ${JSON.stringify(v)}.`, { field: f.field, known: [...new Set(table.values())] });
  return { codes, anyPositive: false };
}

function codeCondition(def: FieldDef, f: Filter, ctx: FilterContext, p: SqlParams): string {
  const table = def.type === 'state' ? ctx.codeStrings.State : def.type === 'fault-type' ? ctx.codeStrings.FaultType : ONGOING_FAULT_TEXT;
  const sets = f.values.map((v) => codesOfText(f, v, table, def.type !== 'state'));
  const codes = sets.flatMap((s) => s.codes);
  const anyPositive = sets.some((s) => s.anyPositive);
  const inSet = `(${def.sql} = any(${p.add(codes)}::double precision[]) or (${p.add(anyPositive)}::boolean and ${def.sql} > 0))`;
  return f.op === 'ne' ? `(${def.sql} is null or not ${inSet})` : inSet;
}

/** EventType eq / ne / in: `Fault` stands for every fault event type (what a masked caller reads). */
function eventTypeCondition(def: FieldDef, f: Filter, p: SqlParams): string {
  const types = f.values.flatMap((v) => (String(v).toLowerCase() === MASKED_FAULT.toLowerCase() ? [...FAULT_EVENT_TYPES] : [String(v)]));
  const inSet = `${def.sql} = any(${p.add(types)}::text[])`;
  return f.op === 'ne' ? `(${def.sql} is null or not ${inSet})` : inSet;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function condition(def: FieldDef, f: Filter, ctx: FilterContext, p: SqlParams): string {
  if (def.type === 'ongoing-fault' || def.type === 'state' || def.type === 'fault-type') return codeCondition(def, f, ctx, p);
  if (def.type === 'event-type' && f.op !== 'contains') return eventTypeCondition(def, f, p);
  if (def.type === 'connectivity') return connectivityCondition(def, f, ctx, p);
  const value = (v: FilterScalar): string | number => (def.type === 'number' ? numberValue(f, v) : textValue(v));
  const cast = def.type === 'number' ? 'double precision' : 'text';
  switch (f.op) {
    case 'eq': return `${def.sql} = ${p.add(value(f.values[0]!))}::${cast}`;
    case 'ne': return `${def.sql} is distinct from ${p.add(value(f.values[0]!))}::${cast}`;
    case 'gte': return `${def.sql} >= ${p.add(value(f.values[0]!))}::${cast}`;
    case 'lte': return `${def.sql} <= ${p.add(value(f.values[0]!))}::${cast}`;
    case 'in': return `${def.sql} = any(${p.add(f.values.map((v) => value(v)))}::${cast}[])`;
    case 'contains': return `${def.sql} ilike '%' || ${p.add(escapeLike(textValue(f.values[0]!)))}::text || '%'`;
  }
}

/** The conditions of `filters` (already whitelisted by parseListQuery), ANDed; [] for none. */
export function filterConditions(filters: readonly Filter[], table: FieldTable, ctx: FilterContext, p: SqlParams): string[] {
  return filters.map((f) => condition(table[f.field]!, f, ctx, p));
}

/**
 * ORDER BY text: the caller's keys (or the default), then the unique tie-breaker so a page boundary never
 * falls between equal rows differently on two requests (issue 4, point 5).
 */
export function orderBy(sort: readonly SortKey[], table: FieldTable, fallback: readonly SortKey[], tieBreaker: readonly string[]): string {
  const keys = (sort.length ? sort : fallback).map((k) => `${table[k.field]!.sql} ${k.order}`);
  return [...keys, ...tieBreaker].join(', ');
}

/**
 * `col >= $range_from and col < $range_until` for the optional bounds: markers (`prefix` names them) with their
 * instants, which the statement sets when it is sent (endpoint.ts statement): values of a plan made per request,
 * where the planner prunes the months outside them and sees how many rows the range holds (with a generic plan's
 * `$n` bounds, a week of critical-data sorted all its events: 40-60 ms at 5M check-ins); values of the generic plan
 * for the one list whose plan does not depend on them (rangedFirstPage); spelled in past the prepared texts' cap
 * (docs/decisions.md#statements-planned-per-request).
 */
export function rangeMarkers(column: string, fromMs: number | null, untilMs: number | null, prefix = '$range'): { conditions: string[]; instants: Record<string, string> } {
  const conditions: string[] = [];
  const instants: Record<string, string> = {};
  if (fromMs !== null) { conditions.push(`${column} >= ${prefix}_from`); instants[`${prefix}_from`] = new Date(fromMs).toISOString(); }
  if (untilMs !== null) { conditions.push(`${column} < ${prefix}_until`); instants[`${prefix}_until`] = new Date(untilMs).toISOString(); }
  return { conditions, instants };
}

/**
 * Whether a page's day range may be values of a prepared statement (rangeMarkers) rather than text planned per
 * request: its first page, in the default order, unfiltered (a filter or another order makes the best plan depend
 * on how many rows the range holds).
 */
export const rangedFirstPage = (q: Pick<ListQuery, 'page' | 'filters' | 'sort' | 'from' | 'to'>, defaultSort: readonly SortKey[]): boolean =>
  q.page === 0 && q.filters.length === 0 && isDefaultOrder(q.sort, defaultSort) && (q.from !== null || q.to !== null);

export function whereClause(conditions: readonly string[]): string {
  return conditions.length ? `where ${conditions.join(' and ')}` : '';
}
