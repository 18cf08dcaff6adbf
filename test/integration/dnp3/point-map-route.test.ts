// GET /api/dnp3/pointMap and GET /api/dnp3/deviceProfile (issue 21 point 1) on the real database, behind a
// stand-in auth middleware that sets the caller.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createMiddleware } from 'hono/factory';
import { createTestDatabase } from '../../../support/database.js';
import type { TestDatabase } from '../../../support/database.js';
import { importDemoData } from '../../../support/reference-data.js';
import { ApiError } from '../../../api/errors.js';
import type { AuthEnv, Role } from '../../../api/auth/caller.js';
import { pointMapRoutes } from '../../../api/dnp3/point-map.js';
import { DEVICE_PROFILE_PATH, POINT_MAP_PATH } from '../../../api/dnp3/endpoints.js';
import { convert } from 'xmlbuilder2';

let db: TestDatabase;
let northDevices = 0; // non-deleted north devices of the fixture
const app = (org: string, role: Role) => {
  const auth = createMiddleware<AuthEnv>(async (c, next) => {
    c.set('caller', { userId: 1, org, role, timeZone: 'UTC', maskFaultDetails: false });
    await next();
  });
  const routes = pointMapRoutes({ pool: db.pool, auth });
  routes.onError((err, c) => c.json({ code: err instanceof ApiError ? err.code : 'ERROR' }, err instanceof ApiError ? err.status : 500));
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

test('device profile: XML of the organisation\'s integration, its addresses and one binary/analog entry per point of the map', async () => {
  const res = await app('north', 'admin').request(DEVICE_PROFILE_PATH);
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'application/xml; charset=utf-8');
  const doc = (convert(await res.text(), { format: 'object' }) as Record<string, any>).DNP3DeviceProfileDocument; // eslint-disable-line @typescript-eslint/no-explicit-any
  assert.is(doc['@xmlns'], 'http://www.dnp3.org/DNP3/DeviceProfile/July2012');
  const ref = doc.referenceDevice;
  assert.is(ref.configuration.linkConfig.dataLinkAddress.currentValue.value, '10');
  assert.is(ref.configuration.linkConfig.expectedSourceAddress.currentValue.value, '1');
  assert.is(ref.configuration.networkConfig.tcpListenPort.currentValue.value, '20000');
  const map = await (await app('north', 'admin').request(POINT_MAP_PATH)).json() as { points: { type: string; index: number; point: string }[] };
  const binaries = [ref.dataPointsList.binaryInputPoints.dataPoints.binaryInput].flat();
  const analogs = [ref.dataPointsList.analogInputPoints.dataPoints.analogInput].flat();
  assert.equal(binaries.map((b: { index: string }) => Number(b.index)), map.points.filter((p) => p.type === 'binary').map((p) => p.index));
  assert.equal(analogs.map((a: { index: string }) => Number(a.index)), map.points.filter((p) => p.type === 'analog').map((p) => p.index));
  assert.ok(String(analogs[0].name).startsWith('heartbeat'));
});

test('device profile: refusals are 4xx with the reason (non-admin, unknown bank, unknown parameter, no DNP3 integration)', async () => {
  assert.is((await app('north', 'user').request(DEVICE_PROFILE_PATH)).status, 403);
  const bank = await app('north', 'admin').request(`${DEVICE_PROFILE_PATH}?bank=3`);
  assert.equal([bank.status, (await bank.json() as { code: string }).code], [400, 'BAD_PARAMETER']);
  assert.is((await app('north', 'admin').request(`${DEVICE_PROFILE_PATH}?bank=x`)).status, 400);
  assert.is((await app('north', 'admin').request(`${DEVICE_PROFILE_PATH}?format=csv`)).status, 400);
  await db.pool.query(`insert into organizations ("OrganizationID", name) values ('nodnp3', 'No DNP3')`);
  const none = await app('nodnp3', 'admin').request(DEVICE_PROFILE_PATH);
  assert.equal([none.status, (await none.json() as { code: string }).code], [404, 'NOT_FOUND']);
});

test.run();
