// OpenAPI parameter objects generated from an endpoint's ParameterSpec: the same tables that validate a
// request describe it, so the document lists exactly what parseListQuery accepts.
import { ONGOING_FAULT_TEXT } from '../../domain/ongoing-fault-codes.js';
import type { CodeStrings } from '../../domain/code-strings.js';
import { OPERATORS_OF, type FieldDef, type FieldTable } from '../device-records/fields.js';
import { CONNECTIVITY } from '../device-records/sql.js';
import { DEFAULT_LIMIT, MAX_LIMIT, MAX_PAGE, type ParameterName, type ParameterSpec, type SortKey } from '../device-records/list-params.js';

type Schema = Record<string, unknown>;

function valueSchema(def: FieldDef, codeStrings: CodeStrings): Schema {
  switch (def.type) {
    case 'text': return { type: ['string', 'number'] };
    case 'number': return { type: 'number' };
    case 'ongoing-fault': return { oneOf: [{ type: 'integer' }, { enum: [...new Set([...ONGOING_FAULT_TEXT.values(), 'Fault'])] }] };
    case 'state': return { oneOf: [{ type: 'integer' }, { enum: [...new Set(codeStrings.State.values())] }] };
    case 'fault-type': return { oneOf: [{ type: 'integer' }, { enum: [...new Set([...codeStrings.FaultType.values(), 'None', 'Fault'])] }] };
    case 'event-type': return { type: 'string', description: '"Fault" stands for every fault event type.' };
    case 'connectivity': return { enum: [...CONNECTIVITY] };
  }
}

function conditionSchema(def: FieldDef, codeStrings: CodeStrings): Schema {
  const value = valueSchema(def, codeStrings);
  const ops = Object.fromEntries(OPERATORS_OF[def.type].map((op) => [op, op === 'in' ? { type: 'array', items: value, minItems: 1, maxItems: 100 } : op === 'contains' ? { type: 'string' } : value]));
  return { oneOf: [value, { type: 'object', properties: ops, additionalProperties: false, minProperties: 1 }] };
}

function describeFields(table: FieldTable): string {
  return Object.keys(table).join(', ');
}

const PARAMETER_DOCS: Record<ParameterName, (spec: ParameterSpec, codeStrings: CodeStrings, defaultSort: readonly SortKey[] | undefined, rangeField: string | undefined) => Schema> = {
  page: () => ({ name: 'page', in: 'query', description: 'Page number, 0-based.', schema: { type: 'integer', minimum: 0, maximum: MAX_PAGE, default: 0 } }),
  limit: () => ({ name: 'limit', in: 'query', description: `Results per page; larger than ${MAX_LIMIT} is a 400.`, schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT } }),
  from: (_s, _c, _d, field) => ({ name: 'from', in: 'query', description: `First calendar day (YYYYMMDD, caller's timezone, inclusive) of ${field}.`, schema: { type: 'string', pattern: '^\\d{8}$' } }),
  to: (_s, _c, _d, field) => ({ name: 'to', in: 'query', description: `Last calendar day (YYYYMMDD, caller's timezone, inclusive) of ${field}.`, schema: { type: 'string', pattern: '^\\d{8}$' } }),
  sortBy: (spec, _c, defaultSort) => {
    const key = { type: 'object', properties: { field: { enum: Object.keys(spec.sortable) }, order: { enum: ['asc', 'desc'], default: 'asc' } }, required: ['field'], additionalProperties: false };
    return {
      name: 'sortBy', in: 'query',
      description: `JSON: {"field", "order"} or an array of up to 4 with distinct fields. Fields: ${describeFields(spec.sortable)}. Default ${JSON.stringify(defaultSort ?? [])}; a unique tie-breaker always follows.`,
      content: { 'application/json': { schema: { oneOf: [key, { type: 'array', items: key, minItems: 1, maxItems: 4, uniqueItems: true }] } } },
    };
  },
  after: (_s, _c, defaultSort) => ({
    name: 'after', in: 'query',
    description: `Keyset cursor: the \`next\` of the previous page; this page holds the rows after it in the default order ${JSON.stringify(defaultSort ?? [])}. Deep pages cost what the first costs (page=N skips N * limit rows). Not with page or a sortBy other than the default (400). The total still counts every row the filters and range match.`,
    schema: { type: 'string' },
  }),
  filterBy: (spec, codeStrings) => ({
    name: 'filterBy', in: 'query',
    description: `JSON object: field -> value (eq) or field -> {operator: value}. Also accepted as filterBy[field]=value and filterBy[field][operator]=value query keys ("in" then takes a comma-separated list). Fields: ${describeFields(spec.filterable)}. Fault codes (Ongoing_fault, ActualOngoingFault) take a code or its string; with MaskFaultDetails only "None" or "Fault".`,
    content: {
      'application/json': {
        schema: { type: 'object', properties: Object.fromEntries(Object.entries(spec.filterable).map(([f, def]) => [f, conditionSchema(def, codeStrings)])), additionalProperties: false },
      },
    },
  }),
};

export function queryParameters(spec: ParameterSpec, codeStrings: CodeStrings, defaultSort?: readonly SortKey[], rangeField?: string): Schema[] {
  return spec.accepts.map((name) => PARAMETER_DOCS[name](spec, codeStrings, defaultSort, rangeField));
}
