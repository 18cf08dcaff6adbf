// Query parameters of the read interface (docs/decisions.md#read-interface-conventions) over the seeded
// database: every parameter error on every endpoint is a 400 that names the parameter; pagination is
// stable and complete; sorting and filtering do what they say and nothing a caller sends reaches SQL text.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { READ_ENDPOINTS } from '../../../api/device-records/endpoints.js';
import { PARAMETERS, type ParameterName } from '../../../api/device-records/list-params.js';
import { encodeCursor } from '../../../api/device-records/keyset.js';
import { seededApi, type SeededApi } from './seeded-api.js';
import { json, type Json } from './paths.js';

const test = suite('parameters');
let api: SeededApi;
test.before(async () => { api = await seededApi(); });
test.after(async () => { await api?.close(); });

const q = (params: Record<string, string>) => new URLSearchParams(params).toString();
const concrete = (path: string) => `/device-records${path.replace(':imei', '861000000000100')}`;

// [parameter, query string that is wrong for it]; a sortBy/filterBy field is filled per endpoint.
function badValues(name: ParameterName, sortField: string, filterField: string): string[] {
  switch (name) {
    case 'page': return [q({ page: '-1' }), q({ page: 'two' }), q({ page: '1.5' }), q({ page: '1000001' }), 'page=1&page=2'];
    case 'limit': return [q({ limit: '0' }), q({ limit: '501' }), q({ limit: 'ten' }), q({ limit: '' })];
    case 'from': return [q({ from: '2026-11-01' }), q({ from: '20261301' }), q({ from: '20261102', to: '20261101' })];
    case 'to': return [q({ to: '2026111' }), q({ to: '20260230' })];
    case 'sortBy': return [q({ sortBy: 'date' }), q({ sortBy: '{"field":"nope"}' }), q({ sortBy: JSON.stringify({ field: sortField, order: 'up' }) }), q({ sortBy: '[]' }),
      q({ sortBy: JSON.stringify([{ field: sortField }, { field: sortField }]) }), q({ sortBy: JSON.stringify({ field: sortField, x: 1 }) })];
    case 'filterBy': return [q({ filterBy: '{' }), q({ filterBy: '{"nope":1}' }), q({ filterBy: '[1]' }), q({ filterBy: JSON.stringify({ [filterField]: { like: 'x' } }) }),
      q({ filterBy: JSON.stringify({ [filterField]: { in: [] } }) }), q({ filterBy: JSON.stringify({ [filterField]: {} }) }),
      'filterBy[nope]=1', `filterBy[${filterField}][zz]=1`, 'filterBy[a][b][c]=1', `filterBy[${filterField}]=1&filterBy[${filterField}]=2`];
    case 'after': return [q({ after: 'x' }), q({ after: 'k1.!!' }), q({ after: encodeCursor(['1']) }), q({ after: encodeCursor(['not a time', 'event', '1']) }),
      q({ after: encodeCursor(['2026-11-01 00:00:00+00', 'nowhere', '1']) }), q({ after: encodeCursor(['2026-11-01 00:00:00+00', '1']), page: '1' }),
      q({ after: encodeCursor(['2026-11-01 00:00:00+00', 'event', '1']), page: '1' }),
      q({ after: encodeCursor(['2026-11-01 00:00:00+00', '1']), sortBy: JSON.stringify({ field: sortField, order: 'asc' }) }), 'after=a&after=b'];
  }
}

for (const endpoint of READ_ENDPOINTS) {
  test(`${endpoint.path}: every parameter error is a 400 naming the parameter`, async () => {
    const path = concrete(endpoint.path);
    const sortField = Object.keys(endpoint.params.sortable)[0] ?? '';
    const filterField = Object.keys(endpoint.params.filterable)[0] ?? '';
    const cases: [string, string][] = [['bogus', 'bogus=1'], ['Page', 'Page=1']];
    for (const name of PARAMETERS) {
      if (endpoint.params.accepts.includes(name)) for (const bad of badValues(name, sortField, filterField)) cases.push([name, bad]);
      else cases.push([name, q({ [name]: name === 'filterBy' ? '{}' : '1' })]);
    }
    for (const [name, query] of cases) {
      const res = await api.get(`${path}?${query}`, 'northAdmin');
      const body = await json(res);
      const error = body.error as Json | undefined;
      assert.is(res.status, 400, `${path}?${query}: ${JSON.stringify(body)}`);
      assert.ok(error && (error.code === 'BAD_PARAMETER' || error.code === 'UNKNOWN_PARAMETER'), `${query}: code`);
      const named = String((error!.details as Json).parameter);
      assert.ok(named === name || named.startsWith(`${name}[`), `${query}: details.parameter ${named} names ${name}`);
      assert.match(String(error!.message), `"${named}"`, `${query}: the message names it`);
    }
  });
}

test('pagination: pages are disjoint, complete and stable; total is the count', async () => {
  const all = await json(await api.get('/device-records/data-log?limit=500', 'northAdmin'));
  const total = all.total as number;
  assert.is(total, 13, 'ten fixture check-ins of registered north devices and three extras');
  assert.is((all.data as Json[]).length, total);
  const seen: unknown[] = [];
  for (let page = 0; page * 4 < total; page++) {
    const body = await json(await api.get(`/device-records/data-log?limit=4&page=${page}`, 'northAdmin'));
    assert.equal([body.page, body.limit, body.total], [page, 4, total]);
    seen.push(...(body.data as Json[]).map((r) => r.RecordID));
  }
  assert.equal(seen, (all.data as Json[]).map((r) => r.RecordID), 'the same order as one big page');
  const past = await json(await api.get('/device-records/data-log?limit=4&page=99', 'northAdmin'));
  assert.equal([past.data, past.total], [[], total]);
});

// Every endpoint that takes `after`, walked by its `next` cursors: the same rows in the same order as one big page.
for (const endpoint of READ_ENDPOINTS.filter((e) => (e.params.accepts as readonly string[]).includes('after'))) {
  test(`${endpoint.path}: keyset pages (after = next) are disjoint, complete and in the default order`, async () => {
    const path = concrete(endpoint.path);
    const all = await json(await api.get(`${path}?limit=500`, 'northAdmin'));
    const rows = all.data as Json[];
    assert.ok(rows.length >= 2, `${path}: the fixtures give at least two rows (${rows.length})`);
    const walked: Json[] = [];
    let next = (await json(await api.get(`${path}?limit=500`, 'northAdmin'))).next;
    assert.is(next, null, 'a page that is not full has no next');
    let query = q({ limit: '1' });
    for (let i = 0; i <= rows.length; i++) {
      const body = await json(await api.get(`${path}?${query}`, 'northAdmin'));
      assert.is(body.total, all.total, 'the total counts the whole list, not what follows the cursor');
      walked.push(...(body.data as Json[]));
      next = body.next;
      if (next === null) break;
      assert.type(next, 'string');
      query = q({ limit: '1', after: String(next) });
    }
    assert.is(next, null, 'the walk ends');
    assert.equal(walked, rows, 'the same rows in the same order as one big page');
  });
}

test('total from the per-device counters equals the counted total and the rows, for each reach', async () => {
  for (const user of ['northAdmin', 'northEast', 'southAdmin', 'southEast'] as const) {
    for (const [path, everything] of [
      ['/device-records/critical-data', 'filterBy[Source][in]=event,dm1_event,model_change'],
      ['/device-records/data-log', 'filterBy[rssi][ne]=12345'],
    ] as const) {
      const counters = await json(await api.get(`${path}?limit=500`, user));
      const counted = await json(await api.get(`${path}?limit=500&${everything}`, user));
      assert.is(counters.total, counted.total, `${user} ${path}`);
      assert.is(counters.total, (counters.data as Json[]).length, `${user} ${path} rows`);
    }
  }
  const critical = await json(await api.get('/device-records/critical-data', 'northAdmin'));
  // 002 PFault, 005 Overcurrent, 007 Fault <50 + TFault, 010 PFault, the extras' Fault Like and SOTF;
  // 006 FAULT_INITIAL (DM1); the model change. Not: Current Reset, the deleted device's PFault.
  assert.is(critical.total, 9);
});

test('ties are broken by the unique key: sorting by a constant column still pages without overlap', async () => {
  // every fixture record has rssi -71
  const ids: unknown[] = [];
  for (let page = 0; page < 8; page++) {
    const body = await json(await api.get(`/device-records/data-log?limit=2&page=${page}&sortBy=${encodeURIComponent('{"field":"rssi"}')}`, 'northAdmin'));
    ids.push(...(body.data as Json[]).map((r) => r.RecordID));
  }
  assert.is(new Set(ids).size, ids.length);
});

test('default limit 50; sortBy asc/desc and several keys', async () => {
  const body = await json(await api.get('/device-records/data-log', 'northAdmin'));
  assert.is(body.limit, 50);
  const asc = (await json(await api.get(`/device-records/all-devices?sortBy=${encodeURIComponent('[{"field":"PowerLineID","order":"desc"},{"field":"IMEINumber"}]')}`, 'northAdmin'))).data as Json[];
  assert.equal(asc.map((d) => d.IMEINumber), ['861000000000100', '861000000000300', '861000000000500', '861000000000000', '861000000000200', '861000000000400', '861000000000600']);
});

test('filterBy: JSON and filterBy[field] forms, eq / ne / in / contains / gte / lte, code strings', async () => {
  const imeis = async (query: string) => ((await json(await api.get(`/device-records/all-devices?${query}`, 'northAdmin'))).data as Json[]).map((d) => d.IMEINumber);
  assert.equal(await imeis(q({ filterBy: '{"ActualOngoingFault":"Permanent"}' })), ['861000000000100', '861000000000400']);
  assert.equal(await imeis('filterBy[ActualOngoingFault]=4'), ['861000000000100', '861000000000400']);
  assert.equal(await imeis('filterBy[ActualOngoingFault][in]=6,10'), ['861000000000200', '861000000000300']);
  assert.equal(await imeis(q({ filterBy: '{"ActualOngoingFault":{"ne":"None"},"PowerLineID":"north-F12"}' })), ['861000000000000', '861000000000200', '861000000000400']);
  assert.equal(await imeis('filterBy[Real_Name][contains]=pole 45'), ['861000000000500']);
  assert.equal(await imeis('filterBy[ActualOngoingFault]=Fault&filterBy[PowerLineID]=north-F7'), ['861000000000100', '861000000000300', '861000000000500']);
  const recs = (await json(await api.get(`/device-records/data-log?${q({ filterBy: '{"AverageCurrent1m":{"lte":1}}' })}`, 'northAdmin'))).data as Json[];
  assert.equal(recs.map((r) => r.AverageCurrent1m), [0.4]);
  const states = (await json(await api.get('/device-records/data-log?filterBy[State]=Normal&limit=1', 'northAdmin'))).total;
  assert.ok((states as number) > 0);
  const events = (await json(await api.get('/device-records/critical-data?filterBy[EventType][in]=PFault,TFault', 'northAdmin'))).data as Json[];
  assert.ok(events.length > 0 && events.every((e) => e.EventType === 'PFault' || e.EventType === 'TFault'));
});

test('a masked organisation filters fault codes only with None / Fault', async () => {
  const bad = await api.get('/device-records/all-devices?filterBy[ActualOngoingFault]=4', 'southAdmin');
  assert.is(bad.status, 400);
  assert.match(String(((await json(bad)).error as Json).message), 'masks fault details');
  const ok = (await json(await api.get('/device-records/all-devices?filterBy[ActualOngoingFault]=Fault', 'southAdmin'))).data as Json[];
  assert.equal(ok.map((d) => d.IMEINumber), ['861100000000000', '861100000000400']);
});

test('all-devices Connectivity lists exactly what device-summary counts online, offline and never checked in', async () => {
  const summary = await json(await api.get('/device-records/device-summary', 'northAdmin'));
  for (const [value, key] of [['online', 'online'], ['offline', 'offline'], ['never', 'neverCheckedIn']] as const) {
    const page = await json(await api.get(`/device-records/all-devices?filterBy[Connectivity]=${value}`, 'northAdmin'));
    assert.is(page.total, summary[key], value);
  }
  assert.is((summary.online as number) + (summary.offline as number), summary.totalDevices);
  assert.ok(new Set([summary.online, summary.offline, summary.neverCheckedIn]).size > 1, 'the counts differ, so the filter selects');
  const bad = await api.get('/device-records/all-devices?filterBy[Connectivity]=sometimes', 'northAdmin');
  assert.is(bad.status, 400);
  assert.match(String(((await json(bad)).error as Json).message), 'online, offline, never');
});

test('text a caller sends never becomes SQL: quotes, wildcards and comments are plain values', async () => {
  for (const value of [`'; drop table users; --`, `%`, `_`, `\\`, `" or 1=1 --`]) {
    const res = await api.get(`/device-records/all-devices?${q({ [`filterBy[Real_Name][contains]`]: value })}`, 'northAdmin');
    assert.is(res.status, 200, value);
    assert.is((await json(res)).total, 0, value);
  }
  const { rows } = await api.db.pool.query('select count(*)::int as n from users');
  assert.is(rows[0].n, 4);
});

test.run();
