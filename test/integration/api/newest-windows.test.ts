// Newest-first windows (api/device-records/newest-window.ts, docs/decisions.md#newest-first-windows) on real
// PostgreSQL: an unranged list in the default order answers exactly what the same list over a day range that
// holds the whole history answers (a ranged list is never windowed), whether its rows lie in the first window,
// in a wider one or only in the whole history; first, OFFSET and keyset pages; and at a window's edge, where a
// device's event is stored up to 30 s before its partition key (spec 3.4). And one device's data-log total, read
// from its counter.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Hono } from 'hono';
import { createApp } from '../../../api/app.js';
import { COUNT_CAP } from '../../../api/device-records/endpoint.js';
import { encodeCursor } from '../../../api/device-records/keyset.js';
import { addMonths, monthOfMs } from '../../../domain/storage-months.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { generateDeviceData, registerDevices } from '../../../support/device-data.js';
import { importDemoData } from '../../../support/reference-data.js';

const test = suite('newest-first windows (real Postgres)');
const DAY = 86_400_000;
const PREFIX = '8690000';
const DEVICE = `${PREFIX}00000002`;
const EDGE_DEVICE = `${PREFIX}00000003`;
const EVERYTHING = 'from=20000101&to=21001231';
let db: TestDatabase;
let newestMs = 0;

type Body = { data: Record<string, unknown>[]; next?: string | null };
interface Client { get(path: string): Promise<Body> }

async function client(nowMs: number): Promise<Client> {
  const app: Hono = createApp({ readiness: {}, pool: db.pool, now: () => nowMs, readCacheMs: 0, jwtSecret: new TextEncoder().encode('windows-secret-windows-secret-windows-secret') });
  const login = await app.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@north.example', password: 'north-Admin-Pass-1' }) });
  const token = ((await login.json()) as { accessToken: string }).accessToken;
  return {
    async get(path) {
      const res = await app.request(path, { headers: { authorization: `Bearer ${token}` } });
      const body = (await res.json()) as Body;
      assert.is(res.status, 200, `${path}: ${JSON.stringify(body).slice(0, 300)}`);
      return body;
    },
  };
}

test.before(async () => {
  db = await createTestDatabase('newest_windows');
  await importDemoData(db.pool);
  const now = monthOfMs(Date.now());
  await registerDevices(db.pool, { prefix: PREFIX, devices: 3, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
  await generateDeviceData(db.pool, { prefix: PREFIX, devices: 3, count: 3300, months: [addMonths(now, -3), addMonths(now, -2), addMonths(now, -1)] });
  await db.pool.query('analyze');
  newestMs = (await db.pool.query<{ at: Date }>('select max("date") as at from device_records')).rows[0]!.at.getTime();
});
test.after(async () => { await db?.drop(); });

const join = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;

/** The list's rows, page by page: `pages` OFFSET pages, or following `next` to the end. */
async function rowsOf(c: Client, path: string, how: 'offset' | 'keyset', pages = 3): Promise<Record<string, unknown>[][]> {
  const out: Record<string, unknown>[][] = [];
  if (how === 'offset') {
    for (let page = 0; page < pages; page++) out.push((await c.get(join(path, `page=${page}`))).data);
    return out;
  }
  let body = await c.get(path);
  out.push(body.data);
  while (body.next) {
    body = await c.get(join(path, `after=${encodeURIComponent(body.next)}`));
    out.push(body.data);
  }
  return out;
}

const LISTS: { path: string; how: 'offset' | 'keyset' }[] = [
  { path: '/device-records/data-log?limit=200', how: 'offset' },
  { path: `/device-records/device-information/data-log/${DEVICE}`, how: 'keyset' },
  { path: `/device-records/device-information/data-log/${DEVICE}?limit=30`, how: 'offset' },
  { path: `/device-records/device-information/events/${DEVICE}?limit=40`, how: 'offset' },
  { path: `/device-records/device-information/load-history/${DEVICE}?limit=25`, how: 'offset' },
];

// Now just after the newest row (the first window holds a page), 100 days later (only the 256-day window does)
// and two years later (only the whole history does). Each client is asked twice: the second time it starts
// from the span it remembered.
for (const [name, afterNewestMs] of [['a day', DAY / 2], ['100 days', 100 * DAY], ['two years', 730 * DAY]] as const) {
  test(`with the newest row ${name} ago: every list answers what the whole history answers`, async () => {
    const c = await client(newestMs + afterNewestMs);
    for (const { path, how } of LISTS) {
      const whole = await rowsOf(c, join(path, EVERYTHING), how);
      assert.ok(whole.flat().length > 0, path);
      for (const round of [1, 2]) assert.equal(await rowsOf(c, path, how), whole, `${path}, round ${round}`);
    }
    // The fleet's keyset pages, from the first page on (the whole chain of 3,300 check-ins).
    const fleet = '/device-records/data-log?limit=500';
    assert.equal(await rowsOf(c, fleet, 'keyset'), await rowsOf(c, join(fleet, EVERYTHING), 'keyset'));
  });
}

test('forged cursors at the ends of time: the answer, never a failed statement', async () => {
  const c = await client(newestMs);
  for (const path of ['/device-records/data-log', `/device-records/device-information/data-log/${DEVICE}`]) {
    const first = await c.get(path);
    // Year 1: a window a day before it would start in year 0, which PostgreSQL does not read.
    assert.equal((await c.get(join(path, `after=${encodeCursor(['0001-01-01 00:00:00+00', '1'])}`))).data, [], path);
    // Far ahead: every row is older, so the page is the first page.
    assert.equal((await c.get(join(path, `after=${encodeCursor(['9999-12-31 23:59:59+00', '9223372036854775807'])}`))).data, first.data, path);
  }
});

test('one device\'s data-log total is its counter: exact past COUNT_CAP, with no count statement', async () => {
  const c = await client(newestMs);
  const { rows } = await db.pool.query<{ n: string }>('select count(*) as n from device_records where "IMEINumber" = $1', [DEVICE]);
  assert.ok(Number(rows[0]!.n) > COUNT_CAP, `the device holds more than COUNT_CAP check-ins: ${rows[0]!.n}`);
  const body = await c.get(`/device-records/device-information/data-log/${DEVICE}`) as Body & { total: number; totalIsEstimate: boolean };
  assert.equal([body.total, body.totalIsEstimate], [Number(rows[0]!.n), false]);
});

test('at a window\'s edge: an event stored 30 s before its partition key does not hide one reported just before the window', async () => {
  const nowMs = newestMs + 2 * DAY;
  const start = nowMs - DAY; // the first window's start
  const at = (ms: number) => new Date(ms).toISOString();
  // 49 events well inside the first window, one stored 30 s before its report (reported 20 s after the window's
  // start, so inside it, but sorting 10 s before the start), and one reported and stored 5 s before the start
  // (outside the window, yet it sorts before the shifted one).
  const { rows } = await db.pool.query<{ id: number }>(`select "Event_Record_ID" as id from event_records where "IMEINumber" = $1 order by "Event_Record_ID" limit 51`, [EDGE_DEVICE]);
  assert.is(rows.length, 51, 'the generator gave the device 51 standard events');
  const times = rows.map((_, i) => i < 49 ? { reported: start + (i + 1) * 60_000, stored: start + (i + 1) * 60_000 } : i === 49 ? { reported: start + 20_000, stored: start - 10_000 } : { reported: start - 5_000, stored: start - 5_000 });
  for (const [i, { id }] of rows.entries()) {
    await db.pool.query(`update event_records set "ReportedEventTimestamp" = $2, "EventTimestamp" = $3 where "Event_Record_ID" = $1`, [id, at(times[i]!.reported), at(times[i]!.stored)]);
  }
  await db.pool.query(`delete from dm1_event_records where "IMEINumber" = $1 and "ReportedEventTimestamp" > $2`, [EDGE_DEVICE, at(start - 60_000)]);
  const c = await client(nowMs);
  const path = `/device-records/device-information/events/${EDGE_DEVICE}?limit=50`;
  const page = (await c.get(path)).data;
  assert.equal(page, (await c.get(join(path, EVERYTHING))).data);
  assert.is(page[49]!.Event_Record_ID, rows[50]!.id, 'the event reported 5 s before the window sorts 50th');
});

test.run();
