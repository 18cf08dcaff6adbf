// A short page is its own total (api/device-records/endpoint.ts shortPageTotal,
// docs/decisions.md#a-short-page-is-its-own-total), on real PostgreSQL through the app: a page without a cursor that is not full answers its total
// with no count statement, and the total is what counting the list gives; a full page, an empty page past the
// end and a keyset page still count, and theirs are right too. And on every paginated route (each caller of
// pageJson), in each kind of form, as an admin and as a group user: every page of every size is its whole list's
// slice, with the list's length as its total, whether the page told it or a count did.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Hono } from 'hono';
import { createApp } from '../../../api/app.js';
import { addMonths, monthOfMs } from '../../../domain/storage-months.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { generateDeviceData, registerDevices } from '../../../support/device-data.js';
import { importDemoData } from '../../../support/reference-data.js';
import { recordingPool } from '../../helpers/recording-pool.js';
import { login } from './seeded-api.js';

const test = suite('a short page is its own total (real Postgres)');
const PREFIX = '8692000';
const DEVICE = `${PREFIX}00000001`;
const ran: string[] = [];
/** The names of the prepared statements among `ran` (a statement run unprepared has none). */
const names = new Map<string, string>();
let db: TestDatabase;
let app: Hono;
let token = '';
/** The group user east@north.example (north-east: one of the two devices). */
let groupToken = '';
const MONTH = addMonths(monthOfMs(Date.now()), -1);
/** The device's events: how many there are, counted directly. */
let events = 0;

test.before(async () => {
  db = await createTestDatabase('short_page_total');
  await importDemoData(db.pool);
  await registerDevices(db.pool, { prefix: PREFIX, devices: 2, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
  await generateDeviceData(db.pool, { prefix: PREFIX, devices: 2, count: 240, months: [MONTH] });
  events = Number((await db.pool.query(`select (select count(*) from event_records where "IMEINumber" = $1) + (select count(*) from dm1_event_records where "IMEINumber" = $1) as n`, [DEVICE])).rows[0].n);
  const pool = recordingPool(db.pool, ({ text, name }) => { ran.push(text); if (name) names.set(text, name); });
  app = createApp({ readiness: {}, pool, readCacheMs: 0, jwtSecret: new TextEncoder().encode('short-page-total-secret-short-page-total') });
  token = await login(app, 'northAdmin');
  groupToken = await login(app, 'northEast');
});
test.after(async () => { await db?.drop(); });

/** The page's answer and whether a count statement ran for it. */
async function ask(path: string): Promise<{ rows: number; total: number; estimated: boolean; next?: string | null; counted: boolean }> {
  ran.length = 0;
  const res = await app.request(path, { headers: { authorization: `Bearer ${token}` } });
  assert.is(res.status, 200, path);
  const body = (await res.json()) as { data: unknown[]; total: number; totalIsEstimate: boolean; next?: string | null };
  return { rows: body.data.length, total: body.total, estimated: body.totalIsEstimate, next: body.next, counted: ran.some((t) => /select count\(\*\)/.test(t)) };
}

const eventsOf = `/device-records/device-information/events/${DEVICE}`;

test('a short first page and a short later page: their totals, no count', async () => {
  assert.ok(events > 20 && events < 200, `the device has a few dozen events (${events})`);
  const all = await ask(`${eventsOf}?limit=200`);
  assert.equal([all.rows, all.total, all.estimated, all.counted], [events, events, false, false]);
  // Pages of events - 1 rows: the second holds the last row alone.
  const tail = await ask(`${eventsOf}?limit=${events - 1}&page=1`);
  assert.equal([tail.rows, tail.total, tail.counted], [1, events, false]);
});

test('a device\'s list checks the device is in reach with a prepared statement (planned once a connection, not per request)', async () => {
  for (const path of [eventsOf, `${eventsOf}?from=20200101`, `/device-records/device-information/load-history/${DEVICE}`]) {
    await ask(path);
    const reach = ran.find((t) => t.includes('from device_information d left join device_read_counts'));
    assert.ok(reach, `${path}: the reach check ran`);
    assert.ok(names.has(reach), `${path}: the reach check is prepared`);
  }
});

test('a full page and an empty page past the end are counted, and right', async () => {
  const everything = `from=20000101&to=${new Date(Date.now() + 86_400_000).toISOString().slice(0, 10).replaceAll('-', '')}`;
  const full = await ask(`${eventsOf}?${everything}&limit=10`);
  assert.equal([full.rows, full.total, full.counted], [10, events, true]);
  const past = await ask(`${eventsOf}?${everything}&limit=10&page=${Math.ceil(events / 10) + 5}`);
  assert.equal([past.rows, past.total, past.counted], [0, events, true]);
});

test('a device\'s unfiltered, unranged events and load history: the total is its counter, no count statement', async () => {
  const currents = Number((await db.pool.query(`select count(*) as n from device_currents where "IMEINumber" = $1`, [DEVICE])).rows[0].n);
  assert.ok(currents > 10, `the device has currents (${currents})`);
  for (const [path, rows] of [[eventsOf, events], [`/device-records/device-information/load-history/${DEVICE}`, currents]] as const) {
    const full = await ask(`${path}?limit=10`);
    assert.equal([full.rows, full.total, full.estimated, full.counted], [10, rows, false, false], path);
    const past = await ask(`${path}?limit=10&page=${Math.ceil(rows / 10) + 5}`);
    assert.equal([past.rows, past.total, past.counted], [0, rows, false], path);
  }
});

test('a device moved into the organisation: its lists count the rows since the move, not its counters', async () => {
  const moved = `${PREFIX}00000002`;
  const since = Date.parse(`${MONTH}-15T00:00:00Z`);
  await db.pool.query(`update device_information set "OrganizationSince" = $2 where "IMEINumber" = $1`, [moved, new Date(since)]);
  try {
    const count = async (sql: string) => Number((await db.pool.query(sql, [moved, new Date(since)])).rows[0].n);
    const lists = [
      [`/device-records/device-information/events/${moved}`, await count(`select (select count(*) from event_records where "IMEINumber" = $1 and "PacketTimestamp" >= $2)
        + (select count(*) from dm1_event_records where "IMEINumber" = $1 and "PacketTimestamp" >= $2) as n`)],
      [`/device-records/device-information/load-history/${moved}`, await count(`select count(*) as n from device_currents where "IMEINumber" = $1 and "PacketTimestamp" >= $2`)],
      [`/device-records/device-information/data-log/${moved}`, await count(`select count(*) as n from device_records where "IMEINumber" = $1 and "date" >= $2`)],
    ] as const;
    for (const [path, rows] of lists) {
      assert.ok(rows > 10, `${path}: rows since the move (${rows})`);
      const full = await ask(`${path}?limit=10`);
      assert.equal([full.rows, full.total, full.counted], [10, rows, true], path);
    }
  } finally {
    await db.pool.query(`update device_information set "OrganizationSince" = '-infinity' where "IMEINumber" = $1`, [moved]);
  }
});

test('a keyset page, short or not, counts the whole list', async () => {
  const first = await ask('/device-records/critical-data?limit=10');
  assert.ok(first.next, 'a next cursor');
  let page = first;
  while (page.next) page = await ask(`/device-records/critical-data?limit=10&after=${encodeURIComponent(page.next)}`);
  assert.ok(page.rows < 10, 'the chain ends on a short page');
  assert.is(page.total, first.total, 'the short keyset page answers the whole list\'s total, not its own rows');
});

/** Every paginated route (each a caller of pageJson), in forms of each kind: unranged, a day range, a filter, another order. */
function lists(imei: string): string[] {
  const day = (d: number) => `${MONTH.replace('-', '')}${String(d).padStart(2, '0')}`;
  const range = `from=${day(8)}&to=${day(21)}`;
  const device = (route: string) => `/device-records/device-information/${route}/${imei}`;
  const filter = (field: string, value: string | number, op = 'eq') => `filterBy=${encodeURIComponent(JSON.stringify({ [field]: { [op]: value } }))}`;
  const sort = (field: string, order = 'asc') => `sortBy=${encodeURIComponent(JSON.stringify({ field, order }))}`;
  return [
    '/device-records/data-log', `/device-records/data-log?${range}`, `/device-records/data-log?${filter('IMEINumber', imei)}`, `/device-records/data-log?${sort('rssi')}`,
    device('data-log'), `${device('data-log')}?${range}`, `${device('data-log')}?${filter('AverageCurrent1m', 120, 'gte')}`, `${device('data-log')}?${sort('date')}`,
    device('events'), `${device('events')}?${range}`, `${device('events')}?${filter('EventType', 'Fault', 'contains')}`, `${device('events')}?${sort('EventID')}`,
    device('load-history'), `${device('load-history')}?${range}`, `${device('load-history')}?${sort('PeakCurrent', 'desc')}`,
    '/device-records/critical-data', `/device-records/critical-data?${range}`, `/device-records/critical-data?${filter('Source', 'event')}`,
    `/device-records/critical-data?${range}&${sort('EventType')}`,
    '/device-records/all-devices', `/device-records/all-devices?${filter('PowerLineID', 'north-F7')}`, `/device-records/all-devices?${sort('Real_Name', 'desc')}`,
    '/api/fleet/devices', `/api/fleet/devices?${sort('LastCheckInTime', 'desc')}`,
  ];
}

test('every paginated route, as an admin and as a group user: each page of every size is the whole list\'s slice, its total the list\'s rows', async () => {
  let pages = 0;
  const { rows: [east] } = await db.pool.query<{ imei: string }>(`select d."IMEINumber" as imei from device_information d join group_device_links l using ("DeviceID")
    where d."IMEINumber" like $1 || '%' and l."GroupID" = 'north-east' order by 1 limit 1`, [PREFIX]);
  for (const [who, bearer, imei] of [['admin', token, DEVICE], ['group', groupToken, east!.imei]] as const) {
    for (const list of lists(imei)) {
      const get = async (query: string) => {
        const path = `${list}${list.includes('?') ? '&' : '?'}${query}`;
        const res = await app.request(path, { headers: { authorization: `Bearer ${bearer}` } });
        assert.is(res.status, 200, `${who} ${path}`);
        pages += 1;
        return { path, body: (await res.json()) as { data: unknown[]; total: number; totalIsEstimate: boolean } };
      };
      // The whole list in one page (MAX_LIMIT): its rows, whatever its total says.
      const whole = (await get('limit=500')).body.data;
      const n = whole.length;
      assert.ok(n > 1 && n < 500, `${who} ${list}: ${n} rows`);
      for (const limit of new Set([1, 2, 7, n - 1, n, n + 1].filter((l) => l >= 1 && l <= 500))) {
        const last = Math.ceil(n / limit) - 1;
        for (const page of new Set([0, 1, 2, last - 1, last, last + 1, last + 3].filter((p) => p >= 0))) {
          const { path, body } = await get(`limit=${limit}&page=${page}`);
          assert.equal(body.data, whole.slice(page * limit, page * limit + limit), `${who} ${path}: rows`);
          assert.equal([body.total, body.totalIsEstimate], [n, false], `${who} ${path}: total`);
        }
      }
    }
  }
  assert.ok(pages > 800, `${pages} pages`);
});

test.run();
