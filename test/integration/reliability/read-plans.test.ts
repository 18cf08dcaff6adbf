// Review M6: the reliability reads that touch incident history read what they answer, not the organisation's
// history: the export of a narrow window (api/reliability/export.ts) and the newest incidents of the sections
// list without a power line (api/reliability/store.ts `lastIncidents`), on incidents ("OrganizationID",
// first_trip_at, id) (migration 0032). The statements the routes send are recorded on their way to real
// Postgres and explained (EXPLAIN ANALYZE, BUFFERS): the buffers their scan of `incidents` reads are bounded by
// what they answer, among 20,000 incidents of the organisation. Counts of buffers, never times.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Hono } from 'hono';
import type pg from 'pg';
import { createApp } from '../../../api/app.js';
import { seededApi, JWT_SECRET, login, NOW, type SeededApi } from '../api/seeded-api.js';
import { recordingPool } from '../../helpers/recording-pool.js';

const test = suite('reliability read plans');
let api: SeededApi;
let app: Hono;
let token: string;
/** Every statement the app sent, text and values. */
const sent: { text: string; values: unknown[] }[] = [];
/**
 * What reading a dozen incidents may cost in buffers of the incidents scan (index and heap pages), with room to
 * spare; the organisation's 20,000 incidents fill some 300 pages. The rest of a statement (per-row subqueries:
 * indicators, cause, restoration) costs per row answered, not per row of history.
 */
const BOUNDED = 40;

interface PlanNode { 'Relation Name'?: string; 'Index Name'?: string; 'Shared Hit Blocks': number; 'Shared Read Blocks': number; 'Actual Rows': number; Plans?: PlanNode[] }

/** The statement's rows, the indexes it used, and the buffers its scans of `incidents` read (each scan node with its children). */
async function plan(q: { text: string; values: unknown[] }): Promise<{ buffers: number; indexes: string[]; rows: number }> {
  const { rows: [row] } = await api.db.pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`explain (analyze, buffers, format json) ${q.text}`, q.values);
  const top = row!['QUERY PLAN'][0].Plan;
  const indexes: string[] = [];
  let buffers = 0;
  const walk = (n: PlanNode) => {
    if (n['Index Name']) indexes.push(n['Index Name']);
    if (n['Relation Name'] === 'incidents') buffers += n['Shared Hit Blocks'] + n['Shared Read Blocks'];
    else for (const c of n.Plans ?? []) walk(c);
  };
  walk(top);
  return { buffers, indexes, rows: top['Actual Rows'] };
}

/** The pool as the app uses it, recording each statement it is sent. */
const recording = (pool: pg.Pool): pg.Pool => recordingPool(pool, ({ text, values }) => { sent.push({ text, values }); });

const get = (path: string) => app.request(path, { headers: { authorization: `Bearer ${token}` } });

test.before(async () => {
  api = await seededApi({ feed: false });
  // The scale: 200 lines. Six years of north's incidents, one every ~2.6 hours across them, none around
  // 2026-05-04; then 12 on that day (north's zone is America/Chicago: 06:00 to 17:00 UTC is the day there).
  await api.db.pool.query(`insert into power_lines ("Id", "OrganizationID", name) select 'north-L' || n, 'north', 'Line ' || n from generate_series(1, 200) n`);
  await api.db.pool.query(`insert into incidents ("OrganizationID", "PowerLineID", status, kind, first_trip_at, last_trip_at, opened_at, updated_at)
    select 'north', 'north-L' || (1 + n % 200), 'closed', 'momentary', t, t, t, t
      from generate_series(1, 20000) n, lateral (select timestamptz '2020-01-01T00:00:00Z' + n * interval '157 minutes' as t) x
     where t not between '2026-05-03' and '2026-05-06'`);
  await api.db.pool.query(`insert into incidents ("OrganizationID", "PowerLineID", status, kind, first_trip_at, last_trip_at, opened_at, updated_at)
    select 'north', 'north-F12', 'closed', 'permanent', t, t, t, t from generate_series(1, 12) n, lateral (select timestamptz '2026-05-04T05:30:00Z' + n * interval '55 minutes' as t) x`);
  // History imported late (a back-fill): its ids come after the newest incidents, so id order is not time order.
  await api.db.pool.query(`insert into incidents ("OrganizationID", "PowerLineID", status, kind, first_trip_at, last_trip_at, opened_at, updated_at)
    select 'north', 'north-L' || (1 + n % 200), 'closed', 'unknown', t, t, t, t from generate_series(1, 500) n, lateral (select timestamptz '2019-01-01T00:00:00Z' + n * interval '1 hour' as t) x`);
  await api.db.pool.query('analyze incidents');
  app = createApp({ readiness: {}, pool: recording(api.db.pool), jwtSecret: JWT_SECRET, now: () => NOW, accountCacheMs: 0 });
  token = await login(app, 'northAdmin');
});
test.after(async () => { await api?.close(); });

test('the export of one day reads that day\'s incidents, not the organisation\'s history', async () => {
  sent.length = 0;
  const res = await get('/api/reliability/export?format=csv&from=20260504&to=20260504');
  const text = await res.text();
  assert.is(res.status, 200, text.slice(0, 200));
  assert.is(text.trim().split('\n').length, 1 + 12);
  const batches = sent.filter((q) => /from incidents i join power_lines/.test(q.text));
  assert.ok(batches.length >= 1, 'the export\'s statements were recorded');
  for (const q of batches) {
    const p = await plan(q);
    assert.ok(p.buffers <= BOUNDED, `a batch of the export read ${p.buffers} buffers of incidents (plan used ${p.indexes.join(', ')})`);
  }
});

test('the sections list without a power line reads the newest incidents, not the organisation\'s history', async () => {
  sent.length = 0;
  const res = await get('/api/reliability/sections?from=20260504&to=20260504');
  const body = (await res.json()) as { lastIncidents: { firstTripAt: string }[] };
  assert.is(res.status, 200);
  assert.is(body.lastIncidents.length, 10);
  const { rows: [newestTrip] } = await api.db.pool.query<{ t: Date }>(`select max(first_trip_at) as t from incidents where "OrganizationID" = 'north'`);
  assert.is(body.lastIncidents[0]!.firstTripAt, newestTrip!.t.toISOString());
  const newest = sent.filter((q) => /order by i\.first_trip_at desc/.test(q.text));
  assert.is(newest.length, 1);
  const p = await plan(newest[0]!);
  assert.is(p.rows, 10);
  assert.ok(p.buffers <= BOUNDED, `the newest incidents read ${p.buffers} buffers of incidents (plan used ${p.indexes.join(', ')})`);
});

test('the sections list without a power line comes in pages of ranked sections, with the total (review M6)', async () => {
  // 600 sections with an incident on 2026-05-04: three on each of the 200 lines.
  await api.db.pool.query(`insert into reliability_section_days ("OrganizationID", "PowerLineID", section_imei, day, label, momentary, tripped_indicators)
    select 'north', 'north-L' || (1 + n % 200), 'S' || n, date '2026-05-04', 'Section ' || n, 1 + n % 7, 1 from generate_series(1, 600) n`);
  const page = async (query: string) => {
    const res = await get(`/api/reliability/sections?from=20260504&to=20260504${query}`);
    assert.is(res.status, 200, query);
    return (await res.json()) as { data: { label: string; rank: number }[]; page: number; limit: number; total: number };
  };
  const first = await page('');
  assert.equal([first.data.length, first.page, first.limit, first.total], [500, 0, 500, 600]);
  const second = await page('&page=1');
  assert.equal([second.data.length, second.data[0]!.rank], [100, 501]);
  assert.is(new Set([...first.data, ...second.data].map((s) => s.label)).size, 600);
  assert.equal((await page('&limit=2000')).data.map((s) => s.label), [...first.data, ...second.data].map((s) => s.label));
  const res = await get('/api/reliability/sections?limit=2001');
  assert.is(res.status, 400);
  assert.is(((await res.json()) as { error: { details: { parameter: string } } }).error.details.parameter, 'limit');
});

test.run();
