// The query parameters of the read interface (spec 4.2; docs/decisions.md#read-interface-conventions),
// validated once into a typed value. Every endpoint names the parameters it takes; any other, a repeated
// one, or a bad value is a 400 naming it.
import type { Temporal } from 'temporal-polyfill';
import { FIRST_SUPPORTED_DAY, isSupportedDay, LAST_SUPPORTED_DAY, parseCalendarDay } from '../../domain/calendar-days.js';
import { badParameter, unknownParameter } from '../errors.js';
import { isStorableText } from '../request.js';
import { OPERATORS, OPERATORS_OF, type FieldTable, type Operator } from './fields.js';

export const PARAMETERS = ['page', 'limit', 'from', 'to', 'sortBy', 'filterBy', 'after'] as const;
export type ParameterName = (typeof PARAMETERS)[number];

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;
/** page * limit stays far inside a bigint OFFSET; deeper pages are refused rather than slow. */
export const MAX_PAGE = 1_000_000;
const MAX_SORT_KEYS = 4;
const MAX_FILTER_VALUES = 100;

export type SortOrder = 'asc' | 'desc';
export interface SortKey { field: string; order: SortOrder }

/** A filter value as sent: a JSON scalar, or a list for `in`. */
export type FilterScalar = string | number | boolean;
export interface Filter { field: string; op: Operator; values: FilterScalar[] }

export interface ListQuery {
  page: number;
  limit: number;
  from: Temporal.PlainDate | null;
  to: Temporal.PlainDate | null;
  sort: SortKey[];
  filters: Filter[];
  /** A keyset cursor (keyset.ts): the page starts after the row it names; null without. */
  after: string | null;
}

/** Whether `sort` asks for `defaultSort`: no sortBy, or the default spelled out. */
export const isDefaultOrder = (sort: readonly SortKey[], defaultSort: readonly SortKey[]): boolean => sort.length === 0
  || (sort.length === defaultSort.length && sort.every((k, i) => k.field === defaultSort[i]!.field && k.order === defaultSort[i]!.order));

/** What one endpoint accepts. */
export interface ParameterSpec {
  accepts: readonly ParameterName[];
  sortable: FieldTable;
  filterable: FieldTable;
}

type Raw = Record<string, string | string[]>;

function single(raw: Raw, name: string): string | undefined {
  const v = raw[name];
  if (Array.isArray(v)) throw badParameter(name, 'is given more than once.');
  return v;
}

function integer(name: string, text: string, min: number, max: number): number {
  if (!/^\d{1,10}$/.test(text)) throw badParameter(name, `must be an integer from ${min} to ${max}.`, { value: text });
  const n = Number(text);
  if (n < min || n > max) throw badParameter(name, `must be an integer from ${min} to ${max}.`, { value: text });
  return n;
}

/** A `from` / `to` day parameter (YYYYMMDD), or null when absent; a 400 naming it otherwise (also the reliability export's). */
export function dayParameter(name: string, text: string | undefined): Temporal.PlainDate | null {
  if (text === undefined) return null;
  const d = parseCalendarDay(text);
  if (!d) throw badParameter(name, 'must be a calendar day as YYYYMMDD.', { value: text });
  if (!isSupportedDay(d)) throw badParameter(name, `must be a day from ${FIRST_SUPPORTED_DAY} to ${LAST_SUPPORTED_DAY}.`, { value: text });
  return d;
}

function json(name: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw badParameter(name, 'must be JSON.', { value: text });
  }
}

function parseSort(text: string, sortable: FieldTable): SortKey[] {
  const value = json('sortBy', text);
  const items = Array.isArray(value) ? value : [value];
  if (items.length === 0 || items.length > MAX_SORT_KEYS) throw badParameter('sortBy', `must hold 1 to ${MAX_SORT_KEYS} sort keys.`);
  const seen = new Set<string>();
  return items.map((item) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw badParameter('sortBy', 'must be {"field": ..., "order": "asc"|"desc"} or an array of those.');
    const { field, order = 'asc', ...rest } = item as Record<string, unknown>;
    const extra = Object.keys(rest)[0];
    if (extra !== undefined) throw badParameter('sortBy', `has an unknown key "${extra}".`);
    if (typeof field !== 'string' || !Object.hasOwn(sortable, field)) {
      throw badParameter('sortBy', `cannot sort by ${JSON.stringify(field)}.`, { field, allowed: Object.keys(sortable) });
    }
    if (order !== 'asc' && order !== 'desc') throw badParameter('sortBy', 'order must be "asc" or "desc".', { field });
    if (seen.has(field)) throw badParameter('sortBy', `sorts by "${field}" twice.`, { field });
    seen.add(field);
    return { field, order };
  });
}

const isScalar = (v: unknown): v is FilterScalar => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean';

function filterOf(field: string, op: string, value: unknown, filterable: FieldTable, fromKey: boolean): Filter {
  const name = `filterBy[${field}]`;
  if (!Object.hasOwn(filterable, field)) throw badParameter('filterBy', `cannot filter by ${JSON.stringify(field)}.`, { field, allowed: Object.keys(filterable) });
  if (!(OPERATORS as readonly string[]).includes(op)) throw badParameter(name, `has an unknown operator "${op}"; use one of ${OPERATORS.join(', ')}.`, { field });
  const allowed = OPERATORS_OF[filterable[field]!.type];
  if (!allowed.includes(op as Operator)) throw badParameter(name, `does not take "${op}"; use one of ${allowed.join(', ')}.`, { field });
  let values: unknown[];
  if (op === 'in') {
    // `filterBy[f][in]=a,b` from a query key; a JSON array inside filterBy=...
    values = fromKey && typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : [];
    if (values.length === 0 || values.length > MAX_FILTER_VALUES) throw badParameter(name, `"in" needs a list of 1 to ${MAX_FILTER_VALUES} values.`, { field });
  } else {
    values = [value];
  }
  if (!values.every(isScalar)) throw badParameter(name, 'values must be strings or numbers.', { field });
  if (!values.every((v) => typeof v !== 'string' || isStorableText(v))) throw badParameter(name, 'values must not hold NUL or unpaired surrogates.', { field });
  return { field, op: op as Operator, values };
}

function filtersOfObject(value: unknown, filterable: FieldTable): Filter[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badParameter('filterBy', 'must be a JSON object of field -> value or field -> {operator: value}.');
  const out: Filter[] = [];
  for (const [field, cond] of Object.entries(value)) {
    if (typeof cond === 'object' && cond !== null && !Array.isArray(cond)) {
      const ops = Object.entries(cond);
      if (ops.length === 0) throw badParameter(`filterBy[${field}]`, 'has no operator.', { field });
      for (const [op, v] of ops) out.push(filterOf(field, op, v, filterable, false));
    } else {
      out.push(filterOf(field, 'eq', cond, filterable, false));
    }
  }
  return out;
}

// `filterBy[field]` or `filterBy[field][op]`
const FILTER_KEY = /^filterBy\[([^[\]]+)\](?:\[([^[\]]+)\])?$/;

/**
 * Validates the query of one request against the endpoint's spec.
 *
 * @example
 *   parseListQuery({ limit: '10', sortBy: '{"field":"date","order":"desc"}' }, spec)
 *   // { page: 0, limit: 10, sort: [{ field: 'date', order: 'desc' }], filters: [], from: null, to: null, after: null }
 */
export function parseListQuery(raw: Raw, spec: ParameterSpec): ListQuery {
  const accepts = new Set<string>(spec.accepts);
  for (const key of Object.keys(raw)) {
    if (accepts.has(key)) continue;
    const bracketed = key.startsWith('filterBy[');
    if (bracketed && accepts.has('filterBy')) {
      if (FILTER_KEY.test(key)) continue;
      throw badParameter(key, 'is not of the form filterBy[field] or filterBy[field][operator].');
    }
    throw unknownParameter(key, spec.accepts);
  }
  const pageText = single(raw, 'page');
  const limitText = single(raw, 'limit');
  const sortText = single(raw, 'sortBy');
  const filterText = single(raw, 'filterBy');
  const after = single(raw, 'after') ?? null;
  const from = dayParameter('from', single(raw, 'from'));
  const to = dayParameter('to', single(raw, 'to'));
  if (from && to && from.since(to).sign > 0) throw badParameter('from', 'is after "to".', { from: from.toString(), to: to.toString() });

  const filters = filterText === undefined ? [] : filtersOfObject(json('filterBy', filterText), spec.filterable);
  for (const key of Object.keys(raw).sort()) {
    const m = FILTER_KEY.exec(key);
    if (!m) continue;
    const value = single(raw, key)!;
    const filter = filterOf(m[1]!, m[2] ?? 'eq', value, spec.filterable, true);
    if (filters.some((f) => f.field === filter.field && f.op === filter.op)) throw badParameter(key, 'repeats a condition that filterBy already sets.', { field: filter.field });
    filters.push(filter);
  }
  return {
    page: pageText === undefined ? 0 : integer('page', pageText, 0, MAX_PAGE),
    limit: limitText === undefined ? DEFAULT_LIMIT : integer('limit', limitText, 1, MAX_LIMIT),
    from, to,
    sort: sortText === undefined ? [] : parseSort(sortText, spec.sortable),
    filters,
    after,
  };
}
