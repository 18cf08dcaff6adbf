// Which pool a read statement goes to and in what form (endpoint.ts statement, docs/decisions.md
// #statements-planned-per-request): planned once, prepared on the pool; planned per request, prepared on its
// plannedPerRequest sibling with its markers as values; past the cap, its markers written into an unnamed text.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { statement } from '../../api/device-records/endpoint.js';
import { MAX_PREPARED_TEXTS, preparedPerRequest } from '../../api/device-records/prepared.js';
import { rangeMarkers } from '../../api/device-records/sql.js';
import { closePool, createPool, plannedPerRequest } from '../../db/pool.js';

// No statement is sent: a pool connects on its first query.
const pool = createPool({ connectionString: 'postgres://nobody@127.0.0.1:1/none', max: 1 });
const week = rangeMarkers('r."date"', Date.parse('2026-11-01T00:00:00Z'), Date.parse('2026-11-08T00:00:00Z'));
const text = `select 1 from device_records r where r."IMEINumber" = $1 and ${week.conditions.join(' and ')}`;

test('planned per request: prepared on the sibling, the instants as values after the statement\'s own', () => {
  const s = statement(pool, text, ['863'], 'per request', week.instants);
  assert.is(s.pool, plannedPerRequest(pool));
  assert.ok(s.config.name);
  assert.is(s.config.text, 'select 1 from device_records r where r."IMEINumber" = $1 and r."date" >= $2::timestamptz and r."date" < $3::timestamptz');
  assert.equal(s.config.values, ['863', '2026-11-01T00:00:00.000Z', '2026-11-08T00:00:00.000Z']);
  // Another week: the same statement.
  const other = rangeMarkers('r."date"', Date.parse('2026-10-01T00:00:00Z'), null);
  assert.is(statement(pool, text.replace(' and r."date" < $range_until', ''), ['863'], 'per request', other.instants).config.values?.length, 2);
});

test('planned once: prepared on the pool itself', () => {
  const s = statement(pool, text, ['863'], 'once', week.instants);
  assert.is(s.pool, pool);
  assert.ok(s.config.name);
  assert.is(s.config.values?.length, 3);
});

test('a page\'s cut: spelled into a statement planned once, values of one planned per request', () => {
  const page = `${text} limit $page_limit offset $page_offset`;
  const cut = { ...week.instants, $page_limit: 50, $page_offset: 100 };
  const once = statement(pool, page, ['863'], 'once', cut);
  assert.ok(once.config.text.endsWith('limit 50 offset 100'));
  assert.is(once.config.values?.length, 3);
  const perRequest = statement(pool, page, ['863'], 'per request', cut);
  assert.ok(perRequest.config.text.endsWith('limit $4::bigint offset $5::bigint'));
  assert.equal(perRequest.config.values?.slice(3), [50, 100]);
  // Another page of another week: the same statement.
  assert.is(statement(pool, page, ['863'], 'per request', { ...cut, $range_from: '2026-01-01T00:00:00.000Z', $page_offset: 4950 }).config.name, perRequest.config.name);
});

test('per request with no marker in its text: unnamed on the pool', () => {
  const none = statement(pool, 'select 1 from device_records r where r."IMEINumber" = $1', ['863'], 'per request', week.instants);
  assert.is(none.pool, pool);
  assert.is(none.config.name, undefined);
});

test('markers with a prefix of their own (events: the reported instant beside the stored one)', () => {
  const reported = rangeMarkers('ev."ReportedEventTimestamp"', 0, 1, '$reported');
  assert.equal(reported.conditions, ['ev."ReportedEventTimestamp" >= $reported_from', 'ev."ReportedEventTimestamp" < $reported_until']);
  assert.equal(Object.keys(reported.instants), ['$reported_from', '$reported_until']);
});

// Last in this file: it fills the process's prepared texts.
test('past MAX_PREPARED_TEXTS planned per request: unnamed on the pool, the range and the cut spelled in', () => {
  for (let i = 0; i < MAX_PREPARED_TEXTS; i++) preparedPerRequest(`select ${i}`, []);
  const s = statement(pool, `${text} and r."x" = 1 limit $page_limit offset $page_offset`, ['863'], 'per request', { ...week.instants, $page_limit: 50, $page_offset: 100 });
  assert.is(s.pool, pool);
  assert.is(s.config.name, undefined);
  assert.is(s.config.text, `select 1 from device_records r where r."IMEINumber" = $1 and r."date" >= '2026-11-01T00:00:00.000Z'::timestamptz and r."date" < '2026-11-08T00:00:00.000Z'::timestamptz and r."x" = 1 limit 50 offset 100`);
  assert.equal(s.config.values, ['863']);
});

test.after(() => closePool(pool));
test.run();
