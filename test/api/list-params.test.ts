import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../../api/errors.js';
import { fault, num, text } from '../../api/device-records/fields.js';
import { DEFAULT_LIMIT, parseListQuery, type ParameterSpec } from '../../api/device-records/list-params.js';

const spec: ParameterSpec = {
  accepts: ['page', 'limit', 'from', 'to', 'sortBy', 'filterBy'],
  sortable: { date: num('r.date'), name: text('r.name') },
  filterable: { name: text('r.name'), level: num('r.level'), ActualOngoingFault: fault('r.f') },
};

function error(raw: Record<string, string | string[]>, s: ParameterSpec = spec): ApiError {
  try {
    parseListQuery(raw, s);
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error(`no error for ${JSON.stringify(raw)}`);
}

test('defaults: page 0, limit 50, no range, no sort, no filter', () => {
  assert.equal(parseListQuery({}, spec), { page: 0, limit: DEFAULT_LIMIT, from: null, to: null, sort: [], filters: [], after: null });
});

test('values are read into their types', () => {
  const q = parseListQuery({ page: '3', limit: '500', from: '20261101', to: '20261101', sortBy: '[{"field":"date","order":"desc"},{"field":"name"}]' }, spec);
  assert.equal([q.page, q.limit, q.from?.toString(), q.to?.toString()], [3, 500, '2026-11-01', '2026-11-01']);
  assert.equal(q.sort, [{ field: 'date', order: 'desc' }, { field: 'name', order: 'asc' }]);
});

test('filterBy: JSON object, operators, and filterBy[field] / filterBy[field][op] keys, merged', () => {
  const q = parseListQuery({
    filterBy: '{"name":"x","level":{"gte":2,"lte":"5"}}',
    'filterBy[ActualOngoingFault][in]': 'Permanent,6',
    'filterBy[name][contains]': 'pole',
  }, spec);
  assert.equal(q.filters, [
    { field: 'name', op: 'eq', values: ['x'] },
    { field: 'level', op: 'gte', values: [2] },
    { field: 'level', op: 'lte', values: ['5'] },
    { field: 'ActualOngoingFault', op: 'in', values: ['Permanent', '6'] },
    { field: 'name', op: 'contains', values: ['pole'] },
  ]);
});

// [query, parameter named, message fragment]
const errors: [Record<string, string | string[]>, string, string][] = [
  [{ bogus: '1' }, 'bogus', 'not accepted'],
  [{ page: ['1', '2'] }, 'page', 'more than once'],
  [{ page: '-1' }, 'page', 'integer'],
  [{ page: '01x' }, 'page', 'integer'],
  [{ limit: '501' }, 'limit', 'from 1 to 500'],
  [{ limit: '0' }, 'limit', 'from 1 to 500'],
  [{ from: '2026-11-01' }, 'from', 'YYYYMMDD'],
  [{ to: '20260231' }, 'to', 'YYYYMMDD'],
  [{ from: '00010101' }, 'from', 'from 20000101 to 29991231'],
  [{ to: '99991231' }, 'to', 'from 20000101 to 29991231'],
  [{ from: '19991231' }, 'from', 'from 20000101'],
  [{ to: '30000101' }, 'to', 'to 29991231'],
  [{ from: '20261102', to: '20261101' }, 'from', 'after'],
  [{ sortBy: 'date' }, 'sortBy', 'JSON'],
  [{ sortBy: '{"field":"secret"}' }, 'sortBy', 'cannot sort'],
  [{ sortBy: '{"field":"date","order":"sideways"}' }, 'sortBy', 'order'],
  [{ sortBy: '{"field":"date","extra":1}' }, 'sortBy', 'unknown key'],
  [{ sortBy: '[{"field":"date"},{"field":"date"}]' }, 'sortBy', 'twice'],
  [{ sortBy: '[1,2,3,4,5]' }, 'sortBy', '1 to 4'],
  [{ filterBy: '{"password_hash":"x"}' }, 'filterBy', 'cannot filter'],
  [{ filterBy: '"name"' }, 'filterBy', 'JSON object'],
  [{ filterBy: '{"name":{"gte":"a"}}' }, 'filterBy[name]', 'does not take "gte"'],
  [{ filterBy: '{"level":{"contains":"1"}}' }, 'filterBy[level]', 'does not take "contains"'],
  [{ filterBy: '{"name":{"regex":".*"}}' }, 'filterBy[name]', 'unknown operator'],
  [{ filterBy: '{"name":{"in":"a"}}' }, 'filterBy[name]', 'list'],
  [{ filterBy: '{"name":{"eq":{"x":1}}}' }, 'filterBy[name]', 'strings or numbers'],
  [{ filterBy: '{"name":null}' }, 'filterBy[name]', 'strings or numbers'],
  [{ 'filterBy[name][eq][x]': '1' }, 'filterBy[name][eq][x]', 'form'],
  [{ 'filterBy[name]': 'a\u0000b' }, 'filterBy[name]', 'NUL'],
  [{ filterBy: '{"name":{"in":["ok","\\ud800"]}}' }, 'filterBy[name]', 'surrogates'],
  [{ filterBy: '{"name":"a"}', 'filterBy[name]': 'b' }, 'filterBy[name]', 'repeats'],
];
for (const [raw, name, fragment] of errors) {
  test(`400 naming ${name}: ${JSON.stringify(raw)}`, () => {
    const err = error(raw);
    assert.is(err.status, 400);
    assert.is(err.details?.parameter, name);
    assert.ok(err.message.includes(`"${name}"`), err.message);
    assert.ok(err.message.includes(fragment), `${err.message} has ${fragment}`);
  });
}

test('an endpoint that takes nothing refuses every parameter, naming it', () => {
  const none: ParameterSpec = { accepts: [], sortable: {}, filterable: {} };
  for (const name of ['page', 'limit', 'from', 'to', 'sortBy', 'filterBy', 'filterBy[name]']) {
    const err = error({ [name]: '1' }, none);
    assert.is(err.code, 'UNKNOWN_PARAMETER');
    assert.is(err.details?.parameter, name);
  }
});

test.run();
