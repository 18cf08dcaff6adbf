// Newest-first windows (api/device-records/newest-window.ts, docs/decisions.md#newest-first-windows) on real
// PostgreSQL: the fleet data-log without a day range answers exactly what the same list over a day range that
// holds the whole history answers (a ranged list is never windowed), whether its rows lie in the first window,
// in a wider one or only in the whole history; first, OFFSET and keyset pages, as an admin and as a group user.
// The lists of one device (never windowed) are held to the same answers. And one device's data-log total, read
// from its counter.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Hono } from 'hono';
import { createApp } from '../../../api/app.js';
import { COUNT_CAP } from '../../../api/device-records/endpoint.js';
import { MAX_PREPARED_TEXTS } from '../../../api/device-records/prepared.js';
import { encodeCursor } from '../../../api/device-records/keyset.js';
import { addMonths, monthOfMs } from '../../../domain/storage-months.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { generateDeviceData, registerDevices } from '../../../support/device-data.js';
import { importDemoData } from '../../../support/reference-data.js';
import { recordingPool, type SentStatement } from '../../helpers/recording-pool.js';
import { explain } from '../storage/plan-bounds.js';

const test = suite('newest-first windows (real Postgres)');
const DAY = 86_400_000;
const PREFIX = '8690000';
const DEVICE = `${PREFIX}00000002`;
const EVERYTHING = 'from=20000101&to=21001231';
let db: TestDatabase;
let newestMs = 0;

type Body = { data: Record<string, unknown>[]; next?: string | null };
interface Client { get(path: string): Promise<Body> }

const LOGINS = { admin: { email: 'admin@north.example', password: 'north-Admin-Pass-1' }, 'group user': { email: 'east@north.example', password: 'north-East-Pass-1' } };

async function client(nowMs: number, who: keyof typeof LOGINS = 'admin', pool = db.pool): Promise<Client> {
  const app: Hono = createApp({ readiness: {}, pool, now: () => nowMs, readCacheMs: 0, jwtSecret: new TextEncoder().encode('windows-secret-windows-secret-windows-secret') });
  const login = await app.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(LOGINS[who]) });
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
    // The fleet's keyset pages, from the first page on (the whole chain of 3,300 check-ins), as an admin and as a
    // group user (who reaches some of the devices: the pages fill more slowly).
    for (const who of ['admin', 'group user'] as const) {
      const as = await client(newestMs + afterNewestMs, who);
      for (const fleet of ['/device-records/data-log?limit=500', '/device-records/data-log?limit=40']) {
        const whole = await rowsOf(as, join(fleet, EVERYTHING), 'keyset');
        assert.ok(whole.flat().length > 0, `${who} ${fleet}`);
        for (const round of [1, 2]) assert.equal(await rowsOf(as, fleet, 'keyset'), whole, `${who} ${fleet}, round ${round}`);
        assert.equal(await rowsOf(as, fleet, 'offset'), await rowsOf(as, join(fleet, EVERYTHING), 'offset'), `${who} ${fleet} offset`);
      }
    }
  });
}

test('an OFFSET page is planned for its window\'s months only (planned per request with its bound); a first page is prepared once, its bound a value', async () => {
  const sent: SentStatement[] = [];
  const c = await client(newestMs + DAY / 2, 'admin', recordingPool(db.pool, (st) => sent.push(st)));
  const pageStatements = () => sent.splice(0).filter((st) => st.text.includes('cross join lateral (select * from device_records'));
  await c.get('/device-records/data-log?limit=200');
  const first = pageStatements();
  assert.ok(first.length > 0 && first.every((st) => st.name !== undefined && /r\."date" >= \$\d+::timestamptz/.test(st.text)), 'the first page: prepared, its bound a placeholder');
  assert.is(new Set(first.map((st) => st.name)).size, 1, 'one prepared statement for every span tried');
  await c.get('/device-records/data-log?limit=200&page=1');
  const deep = pageStatements();
  assert.ok(deep.length > 0);
  for (const st of deep) {
    assert.ok(st.name !== undefined && st.plannedPerRequest, 'an OFFSET page is prepared and planned per request');
    const slot = /r\."date" >= \$(\d+)::timestamptz/.exec(st.text)?.[1];
    assert.ok(slot, 'the bound a placeholder');
    const bound = String(st.values[Number(slot) - 1]);
    // Planned with its values (as the pool it went to plans it: db/pool.ts), the plan holds no month before the bound.
    const { scans } = await explain(db.pool, { text: st.text, values: st.values, plannedPerRequest: true });
    const months = [...new Set(scans.map((scan) => /device_records_p(\d{6})/.exec(scan)?.[1]).filter((m): m is string => m !== undefined))];
    const boundMonth = bound === '-infinity' ? '000000' : bound.slice(0, 7).replace('-', '');
    assert.ok(months.length > 0, 'the plan reads the month partitions');
    assert.equal(months.filter((m) => m < boundMonth), [], `window from ${bound}: months planned ${months.join(', ')}`);
  }
});

for (const who of ['admin', 'group user'] as const) test(`${who}: a day range's first and keyset pages of the fleet data-log (default order, unfiltered) are one prepared statement whatever the days, probing reach laterally; its total, its OFFSET pages and a filtered range's first page are prepared on the pool that plans each request with its values`, async () => {
  const sent: SentStatement[] = [];
  const c = await client(newestMs, who, recordingPool(db.pool, (st) => sent.push(st)));
  const statements = (marker: string) => sent.filter((st) => st.text.includes(marker));
  const pages = () => statements('cross join lateral (select * from device_records');
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');
  const literal = /'\d{4}-\d\d-\d\dT[^']*'::timestamptz/;
  const names = new Set<string | undefined>();
  const countNames = new Set<string | undefined>();
  for (const [from, to] of [[newestMs - 6 * DAY, newestMs], [newestMs - 20 * DAY, newestMs - 14 * DAY]] as const) {
    sent.length = 0;
    const body = await c.get(`/device-records/data-log?limit=40&from=${day(from)}&to=${day(to)}`);
    assert.ok(body.next, 'a full page: a keyset page follows');
    await c.get(`/device-records/data-log?limit=40&from=${day(from)}&to=${day(to)}&after=${encodeURIComponent(body.next)}`);
    for (const st of pages()) {
      names.add(st.name);
      assert.not.ok(literal.test(st.text), 'the range is in the values');
      assert.ok(st.values.some((v) => typeof v === 'string' && /^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(v)), 'the range\'s instants are values');
      assert.ok(st.text.includes('cross join lateral (select 1 from device_information d where d."IMEINumber" = r."IMEINumber"'), 'reach probed laterally');
    }
    for (const st of statements('count(')) {
      assert.ok(st.plannedPerRequest && !literal.test(st.text), 'the total: planned per request with its range as values');
      countNames.add(st.name);
    }
  }
  assert.is(names.size, 2, `a first page and a keyset page, prepared, the same two for both weeks: ${[...names].join(', ')}`);
  assert.not.ok(names.has(undefined));
  assert.is(countNames.size, 1, `one total statement for both weeks: ${[...countNames].join(', ')}`);
  assert.not.ok(countNames.has(undefined));
  const week = `/device-records/data-log?limit=40&from=${day(newestMs - 6 * DAY)}&to=${day(newestMs)}`;
  sent.length = 0;
  await c.get(`${week}&page=1`);
  assert.ok(pages().length > 0 && pages().every((st) => st.name !== undefined && st.plannedPerRequest && !literal.test(st.text)), 'an OFFSET page: prepared, planned per request with its range and its offset as values');
  sent.length = 0;
  await c.get(`${week}&filterBy=${encodeURIComponent(JSON.stringify({ IMEINumber: { eq: DEVICE } }))}`);
  assert.ok(pages().length > 0 && pages().every((st) => st.name !== undefined && st.plannedPerRequest && !literal.test(st.text)), 'a filtered range: prepared, planned per request with its range as values');
});

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

// Last in this file: it fills the process's prepared texts.
test('past MAX_PREPARED_TEXTS, a first page\'s instants (its range, its window) are spelled into its text, so it is planned for their months only (hostile review: a tenant filling the cap left a week planned over every month)', async () => {
  const sent: SentStatement[] = [];
  const c = await client(newestMs, 'admin', recordingPool(db.pool, (st) => sent.push(st)));
  // One tenant fills the cap: a first-page text per limit.
  for (let limit = 1; limit <= MAX_PREPARED_TEXTS + 5; limit++) await c.get(`/device-records/data-log?limit=${limit}`);
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');
  for (const path of [`/device-records/data-log?limit=251&from=${day(newestMs - 6 * DAY)}&to=${day(newestMs)}`, '/device-records/data-log?limit=252']) {
    sent.length = 0;
    await c.get(path);
    const pages = sent.filter((st) => st.text.includes('cross join lateral (select * from device_records'));
    assert.ok(pages.length > 0, path);
    for (const st of pages) {
      assert.is(st.name, undefined, `${path}: past the cap, unprepared`);
      assert.not.match(st.text, /\$\d+::timestamptz/, `${path}: no instant left a placeholder`);
      assert.match(st.text, /'(\d{4}-\d\d-\d\dT[^']*|-infinity)'::timestamptz/, `${path}: its instants in the text`);
    }
  }
});

test.run();
