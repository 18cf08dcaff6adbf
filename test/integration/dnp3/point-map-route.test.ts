// GET /api/dnp3/pointMap on the real database, behind a stand-in auth middleware that sets the caller.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createMiddleware } from 'hono/factory';
import { createTestDatabase } from '../../helpers/database.js';
import type { TestDatabase } from '../../helpers/database.js';
import { importDemoData } from '../../helpers/reference-data.js';
import { ApiError } from '../../../api/errors.js';
import type { AuthEnv, Role } from '../../../api/auth/caller.js';
import { pointMapRoutes, POINT_MAP_PATH } from '../../../api/dnp3/point-map.js';

let db: TestDatabase;
let northDevices = 0; // non-deleted north devices of the fixture
const app = (org: string, role: Role) => {
  const auth = createMiddleware<AuthEnv>(async (c, next) => {
    c.set('caller', { userId: 1, org, role, timeZone: 'UTC', maskFaultDetails: false });
    await next();
  });
  const routes = pointMapRoutes({ pool: db.pool, auth });
  routes.onError((err, c) => c.json({ code: err instanceof ApiError ? err.code : 'ERROR' }, 403));
  return routes;
};

test.before(async () => {
  db = await createTestDatabase('dnp3_route');
  await importDemoData(db.pool);
  northDevices = Number((await db.pool.query(`select count(*) as n from device_information where "OrganizationID" = 'north' and deleted_at is null`)).rows[0].n);
});
test.after(async () => { await db.drop(); });

test('JSON: addresses from the integration, heartbeat, 16 points per device of the caller organisation only', async () => {
  const res = await app('north', 'admin').request(POINT_MAP_PATH);
  assert.is(res.status, 200);
  const body = await res.json() as { outstationAddress: number; masterAddress: number; banks: { bank: number; outstationAddress: number }[]; points: { type: string; index: number; imei: string | null; outstationAddress: number }[] };
  assert.equal([body.outstationAddress, body.masterAddress], [10, 1]);
  assert.equal(body.banks.map((b) => [b.bank, b.outstationAddress]), [[0, 10]]); // under 8,000 devices: one bank
  assert.ok(body.points.every((p) => p.outstationAddress === 10));
  assert.is(body.points.length, 1 + 16 * northDevices);
  assert.ok(body.points.every((p) => p.imei === null || p.imei.startsWith('8610')));
  const south = await (await app('south', 'admin').request(POINT_MAP_PATH)).json() as { points: { imei: string | null }[] };
  const northImeis = new Set(body.points.map((p) => p.imei).filter(Boolean));
  assert.ok(south.points.every((p) => p.imei === null || !northImeis.has(p.imei)));
});

test('CSV with ?format=csv; slots stable across calls', async () => {
  const a = await (await app('north', 'admin').request(`${POINT_MAP_PATH}?format=csv`)).text();
  const res = await app('north', 'admin').request(POINT_MAP_PATH, { headers: { accept: 'text/csv' } });
  assert.is(res.headers.get('content-type'), 'text/csv; charset=utf-8');
  assert.is(await res.text(), a);
  assert.is(a.split('\r\n').length, 1 + 1 + 16 * northDevices + 1);
  assert.ok(a.startsWith('outstationAddress,bank,type,index,slot,'));
});

test('non-admin: refused', async () => {
  const res = await app('north', 'user').request(POINT_MAP_PATH);
  assert.equal(await res.json(), { code: 'FORBIDDEN' });
});

test.run();
