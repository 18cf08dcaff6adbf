// `total` as the tables grow (docs/decisions.md#storage-lifecycle), on real PostgreSQL through the API: past
// COUNT_CAP matching rows a filtered or day-ranged total is the planner's estimate, marked totalIsEstimate;
// under it, and without filters, it is exact. Every list that counts in parts (critical-data) included.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../../../api/app.js';
import { COUNT_CAP } from '../../../api/device-records/endpoint.js';
import { addMonths, monthBounds, monthOfMs } from '../../../domain/storage-months.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { generateDeviceData, registerDevices } from '../../../support/device-data.js';
import { importDemoData } from '../../../support/reference-data.js';

const test = suite('estimated totals (real Postgres)');
let db: TestDatabase;
let request: (path: string) => Promise<{ status: number; body: Record<string, unknown> }>;
const MONTHS = [addMonths(monthOfMs(Date.now()), -1), monthOfMs(Date.now())];
const DEVICE = '868000000000002';

test.before(async () => {
  db = await createTestDatabase('totals');
  await importDemoData(db.pool);
  // 5 devices, 1.2 x COUNT_CAP check-ins each over the two months.
  await registerDevices(db.pool, { prefix: '8680000', devices: 5, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
  await generateDeviceData(db.pool, { prefix: '8680000', devices: 5, count: 6 * COUNT_CAP, months: MONTHS });
  await db.pool.query('analyze');
  const app = createApp({ readiness: {}, pool: db.pool, jwtSecret: new TextEncoder().encode('totals-secret-totals-secret-totals-secret') });
  const login = await app.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@north.example', password: 'north-Admin-Pass-1' }) });
  const token = ((await login.json()) as { accessToken: string }).accessToken;
  request = async (path) => {
    const res = await app.request(path, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
});
test.after(async () => { await db.drop(); });

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');
// Both months whole (calendar days in the admin's zone; a day on either side covers any offset).
const range = `from=${day(monthBounds(MONTHS[0]!).fromMs - 86_400_000)}&to=${day(monthBounds(MONTHS[1]!).untilMs)}`;
const week = `from=${day(monthBounds(MONTHS[0]!).fromMs + 7 * 86_400_000)}&to=${day(monthBounds(MONTHS[0]!).fromMs + 13 * 86_400_000)}`;

test('without filters the counters answer exactly', async () => {
  const { status, body } = await request('/device-records/data-log?limit=1');
  assert.is(status, 200);
  assert.equal([body.total, body.totalIsEstimate], [Number((await db.pool.query('select count(*) from device_records')).rows[0].count), false]);
});

test('a day range over more than COUNT_CAP rows: an estimate, marked so, never below what was counted', async () => {
  for (const path of [`/device-records/data-log?${range}`, `/device-records/critical-data?${range}`, `/device-records/device-information/data-log/${DEVICE}?${range}`]) {
    const { status, body } = await request(path);
    assert.is(status, 200, `${path}: ${JSON.stringify(body).slice(0, 200)}`);
    assert.is(body.totalIsEstimate, true, path);
    assert.ok((body.total as number) > COUNT_CAP, `${path}: ${body.total}`);
  }
});

test('a range or filter under COUNT_CAP rows is counted exactly', async () => {
  const { rows } = await db.pool.query<{ n: string }>(`select count(*) as n from device_records where "IMEINumber" = $1 and "ActualOngoingFault" = 0`, [DEVICE]);
  const { body } = await request(`/device-records/device-information/data-log/${DEVICE}?filterBy=${encodeURIComponent(JSON.stringify({ ActualOngoingFault: { eq: 'None' } }))}`);
  assert.equal([body.total, body.totalIsEstimate], [Number(rows[0]!.n), false]);
  const events = await request(`/device-records/device-information/events/${DEVICE}?${week}`);
  assert.is(events.status, 200);
  assert.is(events.body.totalIsEstimate, false);
});

test.run();
