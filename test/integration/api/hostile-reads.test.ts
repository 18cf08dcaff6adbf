// A hostile caller against the read API's newest-first windows and keyset cursors (api/device-records/keyset.ts,
// newest-window.ts; docs/decisions.md#newest-first-windows) on real PostgreSQL: a cursor forged to match the
// cursor's pattern but naming no instant PostgreSQL reads (30 February, an offset past 15 hours, year 0) or an id
// past bigint is a 400 naming `after` on every keyset list, never a failed statement (a 500). And a keyset chain
// of the fleet data-log over a sparse list reads each page after the second in one window, the span its chain
// needed (not a ladder of windows per page: the remembered span was keyed by the cursor's values, new on every
// page). And the one-second caches keep each caller's totals and device summary its own.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Hono } from 'hono';
import { createApp } from '../../../api/app.js';
import { encodeCursor } from '../../../api/device-records/keyset.js';
import { addMonths, monthOfMs } from '../../../domain/storage-months.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { generateDeviceData, registerDevices } from '../../../support/device-data.js';
import { importDemoData } from '../../../support/reference-data.js';
import { recordingPool } from '../../helpers/recording-pool.js';

const test = suite('hostile reads (real Postgres)');
const PREFIX = '8691000';
const DEVICE = `${PREFIX}00000001`;
const SPARSE_PREFIX = '8691001';
const SOUTH_PREFIX = '8691002';
const SPARSE = `${SPARSE_PREFIX}00000001`;
const DAY = 86_400_000;
/** The statements the app ran (every query through its pool). */
const ran: { text: string; values: unknown[] }[] = [];
let db: TestDatabase;
let app: Hono;
let token = '';

test.before(async () => {
  db = await createTestDatabase('hostile_reads');
  await importDemoData(db.pool);
  await registerDevices(db.pool, { prefix: PREFIX, devices: 2, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
  const month = monthOfMs(Date.now());
  await generateDeviceData(db.pool, { prefix: PREFIX, devices: 2, count: 2400, months: [addMonths(month, -1)] });
  await registerDevices(db.pool, { prefix: SOUTH_PREFIX, devices: 2, org: 'south', powerLines: ['south-F12', 'south-F7'], groups: ['south-east', 'south-west'] });
  await generateDeviceData(db.pool, { prefix: SOUTH_PREFIX, devices: 2, count: 2400, months: [addMonths(month, -1)] });
  // One device with 60 check-ins over six months: about one every three days.
  await registerDevices(db.pool, { prefix: SPARSE_PREFIX, devices: 1, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
  await generateDeviceData(db.pool, { prefix: SPARSE_PREFIX, devices: 1, count: 60, months: [-6, -5, -4, -3, -2, -1].map((n) => addMonths(month, n)) });
  const newestMs = (await db.pool.query<{ at: Date }>('select max("date") as at from device_records where "IMEINumber" = $1', [SPARSE])).rows[0]!.at.getTime();
  // The app's pool, each statement's text noted on its way to PostgreSQL.
  const pool = recordingPool(db.pool, ({ text, values }) => { ran.push({ text, values }); });
  app = createApp({ readiness: {}, pool, now: () => newestMs + DAY / 2, readCacheMs: 0, jwtSecret: new TextEncoder().encode('hostile-reads-secret-hostile-reads-secret') });
  const login = await app.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@north.example', password: 'north-Admin-Pass-1' }) });
  token = ((await login.json()) as { accessToken: string }).accessToken;
});
test.after(async () => { await db?.drop(); });

const get = (path: string) => app.request(path, { headers: { authorization: `Bearer ${token}` } });

// Each matches keyset.ts's pattern for its type; none is a value PostgreSQL reads as that type.
const UNREADABLE_INSTANTS = ['2025-02-30 00:00:00+00', '2025-04-31 12:00:00+00', '2025-01-01 00:00:00+16', '2025-01-01 00:00:00-99:00', '0000-06-01 00:00:00+00'];
const UNREADABLE_IDS = ['9223372036854775808', '9999999999999999999', '-9223372036854775809'];
const GOOD_INSTANT = '2025-01-01 00:00:00+00';

test('a cursor matching the pattern but naming no instant or id: a 400 naming after, on every keyset list, never a 500', async () => {
  const lists: { path: string; cursor: (at: string, id: string) => string[] }[] = [
    { path: '/device-records/data-log', cursor: (at, id) => [at, id] },
    { path: `/device-records/device-information/data-log/${DEVICE}`, cursor: (at, id) => [at, id] },
    { path: '/device-records/critical-data', cursor: (at, id) => [at, 'event', id] },
    // A day range: critical-data holds the cursor's instant as a marker, spelled in past the prepared texts' cap (keyset.ts cursorInstant).
    { path: '/device-records/critical-data?from=20000101&to=21001231', cursor: (at, id) => [at, 'event', id] },
    { path: '/device-records/data-log?from=20000101&to=21001231', cursor: (at, id) => [at, id] },
  ];
  const forged = [...UNREADABLE_INSTANTS.map((at) => [at, '1'] as const), ...UNREADABLE_IDS.map((id) => [GOOD_INSTANT, id] as const)];
  for (const { path, cursor } of lists) {
    for (const [at, id] of forged) {
      const url = `${path}${path.includes('?') ? '&' : '?'}after=${encodeCursor(cursor(at, id))}`;
      const res = await get(url);
      const body = (await res.json()) as { error?: { code: string; details?: { parameter?: string } } };
      assert.is(res.status, 400, `${path} after [${at}, ${id}]: ${JSON.stringify(body)}`);
      assert.is(body.error?.details?.parameter, 'after', `${path} after [${at}, ${id}]`);
    }
    // The same cursor with a readable instant and id is answered.
    assert.is((await get(`${path}${path.includes('?') ? '&' : '?'}after=${encodeCursor(cursor(GOOD_INSTANT, '1'))}`)).status, 200, path);
  }
});

test('a keyset chain over a sparse list (one quiet device): from its third page on, one window per page; walked again, no page but the last reads the whole history', async () => {
  type Page = { data: { RecordID: number }[]; next: string | null };
  // The fleet data-log (the windowed list) filtered to the one sparse device: a sparse list in the default order.
  const path = `/device-records/data-log?limit=10&filterBy=${encodeURIComponent(JSON.stringify({ IMEINumber: { eq: SPARSE } }))}`;
  /** Per page: the window bounds tried (newest-window.ts windowStart: an ISO instant, or -infinity), in order. */
  const walk = async (): Promise<{ ids: number[]; windows: string[][] }> => {
    const ids: number[] = [];
    const windows: string[][] = [];
    let next: string | null = null;
    do {
      ran.length = 0;
      const res = await get(next === null ? path : `${path}&after=${encodeURIComponent(next)}`);
      assert.is(res.status, 200);
      const body = (await res.json()) as Page;
      ids.push(...body.data.map((r) => r.RecordID));
      // The page statement: the keys walk with the row lookup (endpoint.ts deferredPage), once per window tried.
      windows.push(ran.filter((s) => s.text.includes('cross join lateral (select * from device_records'))
        .map((s) => s.values.find((v): v is string => typeof v === 'string' && /^(-infinity|\d{4}-\d\d-\d\dT.*Z)$/.test(v))!));
      next = body.next;
    } while (next !== null);
    return { ids, windows };
  };
  const { rows } = await db.pool.query<{ id: number }>('select "RecordID"::int as id from device_records where "IMEINumber" = $1 order by "date" desc, "RecordID" desc', [SPARSE]);
  const first = await walk();
  assert.equal(first.ids, rows.map((r) => r.id), 'the chain is the device\'s whole history, newest first');
  const tries = first.windows.map((w) => w.length);
  assert.ok(tries[0]! > 1 && tries[1]! > 1, `the first two pages widen: ${tries.join(', ')}`);
  assert.equal(tries.slice(2, 5), [1, 1, 1], `windows per page: ${tries.join(', ')}`);
  // The chain's end (a short or empty page) is read in the whole history; the next walk's pages are not.
  const again = await walk();
  assert.equal(again.ids, first.ids);
  assert.equal(again.windows.slice(0, -1).map((w) => w.length === 1 && w[0] !== '-infinity'), again.windows.slice(0, -1).map(() => true), JSON.stringify(again.windows));
});

const USERS = { northAdmin: ['admin@north.example', 'north-Admin-Pass-1'], northEast: ['east@north.example', 'north-East-Pass-1'], southAdmin: ['admin@south.example', 'south-Admin-Pass-1'], southEast: ['east@south.example', 'south-East-Pass-1'] } as const;

test('totals and device-summary reused for a minute: every caller still reads its own (other org, other groups)', async () => {
  const cached = createApp({ readiness: {}, pool: db.pool, readCacheMs: 60_000, jwtSecret: new TextEncoder().encode('hostile-reads-secret-hostile-reads-secret') });
  // What each caller reaches, counted here: check-ins and devices (reach.ts, spec 5.3).
  const reach = `d.deleted_at is null and d."OrganizationID" = u."OrganizationID" and (u.role = 'admin' or exists (select 1 from group_device_links l
    join user_groups ug on ug."GroupID" = l."GroupID" join groups g on g."GroupID" = ug."GroupID" and g.deleted_at is null where l."DeviceID" = d."DeviceID" and ug.user_id = u.id))`;
  for (const round of [1, 2]) {
    for (const [name, [email, password]] of Object.entries(USERS)) {
      const login = await cached.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
      const headers = { authorization: `Bearer ${((await login.json()) as { accessToken: string }).accessToken}` };
      const { rows } = await db.pool.query<{ records: number; devices: number }>(`select
          (select count(*)::int from device_records r join device_information d on d."IMEINumber" = r."IMEINumber" where ${reach}) as records,
          (select count(*)::int from device_information d where ${reach}) as devices
        from users u where u.email = $1`, [email]);
      const page = (await (await cached.request('/device-records/data-log', { headers })).json()) as { total: number };
      const summary = (await (await cached.request('/device-records/device-summary', { headers })).json()) as { totalDevices: number };
      assert.ok(rows[0]!.records >= 1000, `${name} reaches a total the cache keeps: ${rows[0]!.records}`);
      assert.equal([page.total, summary.totalDevices], [rows[0]!.records, rows[0]!.devices], `${name}, round ${round}`);
    }
  }
});

test.run();
